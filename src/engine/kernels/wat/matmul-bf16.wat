;; bf16 right-hand sides (fragment of the kernels module): a frozen weight stored as bfloat16
;; bits (the top half of a float32) is widened to float32 while it is packed (matmul_block)
;; or while it is read (matmul_rows), so it never exists as float32 in memory. Widening is
;; exact (shift left 16) and these functions add in the same order as their float32 twins,
;; so a bf16 matmul equals the float32 matmul of the widened weight bit for bit.
;; Flag bit 8 (BF16_B in wasm-module.ts) selects them.

;; Packs op(B)[p0:p0+kc, j0:j0+nc] of a bf16 b into the 8-column float32 panels of $pack_b.
(func $pack_b_bf16 (param $b i32) (param $n i32) (param $k i32) (param $transB i32)
  (param $p0 i32) (param $kc i32) (param $j0 i32) (param $nc i32) (param $dst i32)
  (local $j i32) (local $jEnd i32) (local $p i32) (local $cc i32) (local $col i32) (local $src i32) (local $stride i32)
  (local.set $jEnd (i32.add (local.get $j0) (local.get $nc)))
  (local.set $j (local.get $j0))
  (block $done (loop $panels
    (br_if $done (i32.ge_u (local.get $j) (local.get $jEnd)))
    (if (i32.and (i32.eqz (local.get $transB)) (i32.le_u (i32.add (local.get $j) (i32.const 8)) (local.get $jEnd)))
      (then
        ;; rows of B are contiguous: 8 bf16 (16 bytes) per k step, widened 4 at a time
        (local.set $src (i32.add (local.get $b)
          (i32.shl (i32.add (i32.mul (local.get $p0) (local.get $n)) (local.get $j)) (i32.const 1))))
        (local.set $stride (i32.shl (local.get $n) (i32.const 1)))
        (local.set $p (i32.const 0))
        (loop $rows
          (v128.store (local.get $dst) (i32x4.shl (v128.load16x4_u (local.get $src)) (i32.const 16)))
          (v128.store offset=16 (local.get $dst) (i32x4.shl (v128.load16x4_u offset=8 (local.get $src)) (i32.const 16)))
          (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
          (local.set $src (i32.add (local.get $src) (local.get $stride)))
          (br_if $rows (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc)))))
      (else
        ;; transposed (op(B)[p][col] = b[col*k + p]) or the last, partial panel: column by
        ;; column, reading each column's k run in order, zero-padding missing columns
        (local.set $cc (i32.const 0))
        (loop $cols
          (local.set $col (i32.add (local.get $j) (local.get $cc)))
          (local.set $p (i32.const 0))
          (loop $ks
            (f32.store (i32.add (local.get $dst) (i32.shl (i32.add (i32.shl (local.get $p) (i32.const 3)) (local.get $cc)) (i32.const 2)))
              (if (result f32) (i32.lt_u (local.get $col) (local.get $jEnd))
                (then (f32.reinterpret_i32 (i32.shl (i32.load16_u (i32.add (local.get $b) (i32.shl
                  (if (result i32) (local.get $transB)
                    (then (i32.add (i32.mul (local.get $col) (local.get $k)) (i32.add (local.get $p0) (local.get $p))))
                    (else (i32.add (i32.mul (i32.add (local.get $p0) (local.get $p)) (local.get $n)) (local.get $col))))
                  (i32.const 1)))) (i32.const 16))))
                (else (f32.const 0))))
            (br_if $ks (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc))))
          (br_if $cols (i32.lt_u (local.tee $cc (i32.add (local.get $cc) (i32.const 1))) (i32.const 8))))
        (local.set $dst (i32.add (local.get $dst) (i32.shl (local.get $kc) (i32.const 5))))))
    (local.set $j (i32.add (local.get $j) (i32.const 8)))
    (br $panels))))

;; sum x[p] * widen(y[p]) for float32 x and bf16 y, in the order of $dot (matvec.wat).
(func $dot_bf16 (param $x i32) (param $y i32) (param $k i32) (result f32)
  (local $end i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $s f32)
  (local.set $end (i32.add (local.get $x) (i32.shl (i32.and (local.get $k) (i32.const -16)) (i32.const 2))))
  (if (i32.lt_u (local.get $x) (local.get $end)) (then
    (loop $l
      (local.set $a0 (MADD (v128.load offset=0 (local.get $x)) (i32x4.shl (v128.load16x4_u offset=0 (local.get $y)) (i32.const 16)) (local.get $a0)))
      (local.set $a1 (MADD (v128.load offset=16 (local.get $x)) (i32x4.shl (v128.load16x4_u offset=8 (local.get $y)) (i32.const 16)) (local.get $a1)))
      (local.set $a2 (MADD (v128.load offset=32 (local.get $x)) (i32x4.shl (v128.load16x4_u offset=16 (local.get $y)) (i32.const 16)) (local.get $a2)))
      (local.set $a3 (MADD (v128.load offset=48 (local.get $x)) (i32x4.shl (v128.load16x4_u offset=24 (local.get $y)) (i32.const 16)) (local.get $a3)))
      (local.set $y (i32.add (local.get $y) (i32.const 32)))
      (br_if $l (i32.lt_u (local.tee $x (i32.add (local.get $x) (i32.const 64))) (local.get $end))))))
  (local.set $end (i32.add (local.get $end) (i32.shl (i32.and (local.get $k) (i32.const 12)) (i32.const 2))))
  (block $d1 (loop $l1 (br_if $d1 (i32.ge_u (local.get $x) (local.get $end)))
    (local.set $a0 (MADD (v128.load (local.get $x)) (i32x4.shl (v128.load16x4_u (local.get $y)) (i32.const 16)) (local.get $a0)))
    (local.set $y (i32.add (local.get $y) (i32.const 8)))
    (local.set $x (i32.add (local.get $x) (i32.const 16))) (br $l1)))
  (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
  (local.set $s (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
    (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
  (local.set $end (i32.add (local.get $end) (i32.shl (i32.and (local.get $k) (i32.const 3)) (i32.const 2))))
  (block $d2 (loop $l2 (br_if $d2 (i32.ge_u (local.get $x) (local.get $end)))
    (local.set $s (f32.add (local.get $s) (f32.mul (f32.load (local.get $x))
      (f32.reinterpret_i32 (i32.shl (i32.load16_u (local.get $y)) (i32.const 16))))))
    (local.set $y (i32.add (local.get $y) (i32.const 2)))
    (local.set $x (i32.add (local.get $x) (i32.const 4))) (br $l2)))
  (local.get $s))

;; matmul_rows with a bf16 b: transB (decoding, y = x W^T) is one $dot_bf16 per output over
;; one sequential stream of W; the rare untransposed case (dx = dy W for fewer than 4 rows)
;; sums each output p ascending.
(func $matmul_rows_bf16 (param $a i32) (param $b i32) (param $c i32) (param $m i32) (param $n i32) (param $k i32) (param $flags i32)
  (local $i i32) (local $j i32) (local $x i32) (local $crow i32) (local $acc i32) (local $cp i32) (local $s f32) (local $p i32)
  (local.set $acc (i32.and (i32.shr_u (local.get $flags) (i32.const 2)) (i32.const 1)))
  (block $id (loop $il (br_if $id (i32.ge_u (local.get $i) (local.get $m)))
    (local.set $x (i32.add (local.get $a) (i32.shl (i32.mul (local.get $i) (local.get $k)) (i32.const 2))))
    (local.set $crow (i32.add (local.get $c) (i32.shl (i32.mul (local.get $i) (local.get $n)) (i32.const 2))))
    (local.set $j (i32.const 0))
    (block $jd (loop $jl (br_if $jd (i32.ge_u (local.get $j) (local.get $n)))
      (if (i32.and (local.get $flags) (i32.const 2))
        (then
          (local.set $s (call $dot_bf16 (local.get $x) (i32.add (local.get $b) (i32.shl (i32.mul (local.get $j) (local.get $k)) (i32.const 1))) (local.get $k))))
        (else
          (local.set $s (f32.const 0))
          (local.set $p (i32.const 0))
          (block $pd (loop $pl (br_if $pd (i32.ge_u (local.get $p) (local.get $k)))
            (local.set $s (f32.add (local.get $s) (f32.mul (f32.load (i32.add (local.get $x) (i32.shl (local.get $p) (i32.const 2))))
              (f32.reinterpret_i32 (i32.shl (i32.load16_u (i32.add (local.get $b)
                (i32.shl (i32.add (i32.mul (local.get $p) (local.get $n)) (local.get $j)) (i32.const 1)))) (i32.const 16))))))
            (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $pl)))))
      (local.set $cp (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
      (f32.store (local.get $cp) (select (f32.add (f32.load (local.get $cp)) (local.get $s)) (local.get $s) (local.get $acc)))
      (local.set $j (i32.add (local.get $j) (i32.const 1))) (br $jl)))
    (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $il))))
