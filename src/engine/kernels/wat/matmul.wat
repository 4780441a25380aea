;; Blocked matrix multiply C[i0:i1, j0:j1] (+)= op(A) op(B), all row-major f32.
;; Fragment of the kernels module (scripts/build-wasm.mjs wraps it; MADD is x*y+z).
;;
;; Layout (GotoBLAS style): for each NC-wide column block and KC-deep k block, B is packed
;; into 8-column panels [p][8]; for each MC-tall row block, A is packed into 4-row panels
;; [p][4]; a 4x8 micro-kernel keeps its 32 outputs in eight v128 registers. Packing pads
;; edges with zeros, so the micro-kernel always runs full tiles; partial tiles go through a
;; small scratch tile. Every output is summed in the same order (p ascending within a k
;; block, k blocks ascending) whichever thread or tile computes it, so results do not
;; depend on how the work is split.

;; 4x8 register tile: c[4][8] (+)= packedA[kc][4] * packedB[kc][8]. kc >= 1.
(func $micro (param $pa i32) (param $pb i32) (param $kc i32) (param $c i32) (param $ldc i32) (param $acc i32)
  (local $end i32) (local $b0 v128) (local $b1 v128) (local $a v128)
  (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)
  (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
  (local $c1 i32) (local $c2 i32) (local $c3 i32)
  (local.set $end (i32.add (local.get $pa) (i32.shl (local.get $kc) (i32.const 4))))
  (loop $k
    (local.set $b0 (v128.load (local.get $pb)))
    (local.set $b1 (v128.load offset=16 (local.get $pb)))
    (local.set $a (v128.load32_splat offset=0 (local.get $pa)))
    (local.set $c00 (MADD (local.get $a) (local.get $b0) (local.get $c00)))
    (local.set $c01 (MADD (local.get $a) (local.get $b1) (local.get $c01)))
    (local.set $a (v128.load32_splat offset=4 (local.get $pa)))
    (local.set $c10 (MADD (local.get $a) (local.get $b0) (local.get $c10)))
    (local.set $c11 (MADD (local.get $a) (local.get $b1) (local.get $c11)))
    (local.set $a (v128.load32_splat offset=8 (local.get $pa)))
    (local.set $c20 (MADD (local.get $a) (local.get $b0) (local.get $c20)))
    (local.set $c21 (MADD (local.get $a) (local.get $b1) (local.get $c21)))
    (local.set $a (v128.load32_splat offset=12 (local.get $pa)))
    (local.set $c30 (MADD (local.get $a) (local.get $b0) (local.get $c30)))
    (local.set $c31 (MADD (local.get $a) (local.get $b1) (local.get $c31)))
    (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
    (local.set $pb (i32.add (local.get $pb) (i32.const 32)))
    (br_if $k (i32.lt_u (local.get $pa) (local.get $end))))
  (local.set $c1 (i32.add (local.get $c) (local.get $ldc)))
  (local.set $c2 (i32.add (local.get $c1) (local.get $ldc)))
  (local.set $c3 (i32.add (local.get $c2) (local.get $ldc)))
  (if (local.get $acc) (then
    (local.set $c00 (f32x4.add (v128.load (local.get $c)) (local.get $c00)))
    (local.set $c01 (f32x4.add (v128.load offset=16 (local.get $c)) (local.get $c01)))
    (local.set $c10 (f32x4.add (v128.load (local.get $c1)) (local.get $c10)))
    (local.set $c11 (f32x4.add (v128.load offset=16 (local.get $c1)) (local.get $c11)))
    (local.set $c20 (f32x4.add (v128.load (local.get $c2)) (local.get $c20)))
    (local.set $c21 (f32x4.add (v128.load offset=16 (local.get $c2)) (local.get $c21)))
    (local.set $c30 (f32x4.add (v128.load (local.get $c3)) (local.get $c30)))
    (local.set $c31 (f32x4.add (v128.load offset=16 (local.get $c3)) (local.get $c31)))))
  (v128.store (local.get $c) (local.get $c00))
  (v128.store offset=16 (local.get $c) (local.get $c01))
  (v128.store (local.get $c1) (local.get $c10))
  (v128.store offset=16 (local.get $c1) (local.get $c11))
  (v128.store (local.get $c2) (local.get $c20))
  (v128.store offset=16 (local.get $c2) (local.get $c21))
  (v128.store (local.get $c3) (local.get $c30))
  (v128.store offset=16 (local.get $c3) (local.get $c31)))

;; Adds (or copies) the valid rows x cols corner of a 4x8 scratch tile into C.
(func $merge_tile (param $tile i32) (param $c i32) (param $ldc i32) (param $rows i32) (param $cols i32) (param $acc i32)
  (local $r i32) (local $j i32) (local $dst i32) (local $src i32)
  (loop $rl
    (local.set $j (i32.const 0))
    (loop $jl
      (local.set $dst (i32.add (i32.add (local.get $c) (i32.mul (local.get $r) (local.get $ldc))) (i32.shl (local.get $j) (i32.const 2))))
      (local.set $src (i32.add (local.get $tile) (i32.shl (i32.add (i32.shl (local.get $r) (i32.const 3)) (local.get $j)) (i32.const 2))))
      (f32.store (local.get $dst)
        (if (result f32) (local.get $acc)
          (then (f32.add (f32.load (local.get $dst)) (f32.load (local.get $src))))
          (else (f32.load (local.get $src)))))
      (br_if $jl (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $cols))))
    (br_if $rl (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $rows)))))

;; C[i0:i1, j0:j1] (+)= op(A) op(B). flags: 1 transA, 2 transB, 4 accumulate, 8 b is bf16
;; (matmul-bf16.wat; not with transA). k >= 1.
;; scratch: 128-byte tile, then MC*KC floats of packed A, then KC*NC floats of packed B.
;; i0, MC are multiples of 4 and j0, NC of 8 (except at the matrix edge).
(func (export "matmul_block")
  (param $a i32) (param $b i32) (param $c i32) (param $m i32) (param $n i32) (param $k i32)
  (param $flags i32) (param $i0 i32) (param $i1 i32) (param $j0 i32) (param $j1 i32)
  (param $scratch i32) (param $KC i32) (param $MC i32) (param $NC i32)
  (local $packA i32) (local $packB i32) (local $ldc i32)
  (local $jc i32) (local $nc i32) (local $pc i32) (local $kc i32) (local $ic i32) (local $mc i32)
  (local $jr i32) (local $ir i32) (local $acc i32) (local $cptr i32) (local $pa i32) (local $pb i32)
  (local.set $packA (i32.add (local.get $scratch) (i32.const 128)))
  (local.set $packB (i32.add (local.get $packA) (i32.shl (i32.mul (local.get $MC) (local.get $KC)) (i32.const 2))))
  (local.set $ldc (i32.shl (local.get $n) (i32.const 2)))
  (local.set $jc (local.get $j0))
  (block $jdone (loop $jloop
    (br_if $jdone (i32.ge_u (local.get $jc) (local.get $j1)))
    (local.set $nc (select (local.get $NC) (i32.sub (local.get $j1) (local.get $jc))
      (i32.lt_u (local.get $NC) (i32.sub (local.get $j1) (local.get $jc)))))
    (local.set $pc (i32.const 0))
    (block $pdone (loop $ploop
      (br_if $pdone (i32.ge_u (local.get $pc) (local.get $k)))
      (local.set $kc (select (local.get $KC) (i32.sub (local.get $k) (local.get $pc))
        (i32.lt_u (local.get $KC) (i32.sub (local.get $k) (local.get $pc)))))
      (local.set $acc (i32.or (i32.ne (local.get $pc) (i32.const 0)) (i32.and (i32.shr_u (local.get $flags) (i32.const 2)) (i32.const 1))))
      (if (i32.and (local.get $flags) (i32.const 8))
        (then (call $pack_b_bf16 (local.get $b) (local.get $n) (local.get $k) (i32.and (i32.shr_u (local.get $flags) (i32.const 1)) (i32.const 1))
          (local.get $pc) (local.get $kc) (local.get $jc) (local.get $nc) (local.get $packB)))
        (else (call $pack_b (local.get $b) (local.get $n) (local.get $k) (i32.and (i32.shr_u (local.get $flags) (i32.const 1)) (i32.const 1))
          (local.get $pc) (local.get $kc) (local.get $jc) (local.get $nc) (local.get $packB))))
      (local.set $ic (local.get $i0))
      (block $idone (loop $iloop
        (br_if $idone (i32.ge_u (local.get $ic) (local.get $i1)))
        (local.set $mc (select (local.get $MC) (i32.sub (local.get $i1) (local.get $ic))
          (i32.lt_u (local.get $MC) (i32.sub (local.get $i1) (local.get $ic)))))
        (call $pack_a (local.get $a) (local.get $m) (local.get $k) (i32.and (local.get $flags) (i32.const 1))
          (local.get $ic) (local.get $mc) (local.get $pc) (local.get $kc) (local.get $packA))
        (local.set $jr (i32.const 0))
        (loop $jrloop
          (local.set $pb (i32.add (local.get $packB) (i32.shl (i32.mul (local.get $jr) (local.get $kc)) (i32.const 2))))
          (local.set $ir (i32.const 0))
          (loop $irloop
            (local.set $pa (i32.add (local.get $packA) (i32.shl (i32.mul (local.get $ir) (local.get $kc)) (i32.const 2))))
            (local.set $cptr (i32.add (local.get $c) (i32.shl
              (i32.add (i32.mul (i32.add (local.get $ic) (local.get $ir)) (local.get $n)) (i32.add (local.get $jc) (local.get $jr)))
              (i32.const 2))))
            (if (i32.and (i32.le_u (i32.add (local.get $ir) (i32.const 4)) (local.get $mc))
                         (i32.le_u (i32.add (local.get $jr) (i32.const 8)) (local.get $nc)))
              (then (call $micro (local.get $pa) (local.get $pb) (local.get $kc) (local.get $cptr) (local.get $ldc) (local.get $acc)))
              (else
                (call $micro (local.get $pa) (local.get $pb) (local.get $kc) (local.get $scratch) (i32.const 32) (i32.const 0))
                (call $merge_tile (local.get $scratch) (local.get $cptr) (local.get $ldc)
                  (select (i32.const 4) (i32.sub (local.get $mc) (local.get $ir)) (i32.le_u (i32.const 4) (i32.sub (local.get $mc) (local.get $ir))))
                  (select (i32.const 8) (i32.sub (local.get $nc) (local.get $jr)) (i32.le_u (i32.const 8) (i32.sub (local.get $nc) (local.get $jr))))
                  (local.get $acc))))
            (br_if $irloop (i32.lt_u (local.tee $ir (i32.add (local.get $ir) (i32.const 4))) (local.get $mc))))
          (br_if $jrloop (i32.lt_u (local.tee $jr (i32.add (local.get $jr) (i32.const 8))) (local.get $nc))))
        (local.set $ic (i32.add (local.get $ic) (local.get $MC)))
        (br $iloop)))
      (local.set $pc (i32.add (local.get $pc) (local.get $KC)))
      (br $ploop)))
    (local.set $jc (i32.add (local.get $jc) (local.get $NC)))
    (br $jloop))))
