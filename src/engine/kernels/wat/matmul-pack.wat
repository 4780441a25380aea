;; Packing for matmul.wat (fragment of the kernels module): copies blocks of op(A) and op(B)
;; into the panel layouts the 4x8 micro-kernel streams through, zero-padding partial
;; panels. Transposed reads go through 4x4 shuffle transposes, four k steps at a time.

;; Packs B[p0:p0+kc, j0:j0+nc] (op(B), i.e. read transposed when transB) into 8-col panels.
(func $pack_b (param $b i32) (param $n i32) (param $k i32) (param $transB i32)
  (param $p0 i32) (param $kc i32) (param $j0 i32) (param $nc i32) (param $dst i32)
  (local $j i32) (local $jEnd i32) (local $p i32) (local $jj i32) (local $col i32) (local $src i32)
  (local $stride i32)
  (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
  (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
  (local.set $jEnd (i32.add (local.get $j0) (local.get $nc)))
  (local.set $j (local.get $j0))
  (if (i32.and (i32.eqz (local.get $transB)) (i32.ge_u (local.get $nc) (i32.const 8)))
    (then
      ;; Not transposed: walk each row of the block once, left to right, scattering 8-float
      ;; pieces to their panels (panel q at q*kc*32 bytes). Reading panel by panel instead
      ;; would stride through B by rows and thrash the cache when n*4 is a power of two.
      (local.set $jj (i32.and (local.get $nc) (i32.const -8)))
      (local.set $stride (i32.shl (local.get $kc) (i32.const 5)))
      (local.set $p (i32.const 0))
      (loop $rowsR
        (local.set $src (i32.add (local.get $b)
          (i32.shl (i32.add (i32.mul (i32.add (local.get $p0) (local.get $p)) (local.get $n)) (local.get $j0)) (i32.const 2))))
        (local.set $col (i32.add (local.get $dst) (i32.shl (local.get $p) (i32.const 5))))
        (local.set $j (i32.const 0))
        (loop $piece
          (v128.store (local.get $col) (v128.load (local.get $src)))
          (v128.store offset=16 (local.get $col) (v128.load offset=16 (local.get $src)))
          (local.set $src (i32.add (local.get $src) (i32.const 32)))
          (local.set $col (i32.add (local.get $col) (local.get $stride)))
          (br_if $piece (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 8))) (local.get $jj))))
        (br_if $rowsR (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc))))
      ;; continue with the partial panel, if any
      (local.set $dst (i32.add (local.get $dst) (i32.mul (local.get $jj) (i32.shl (local.get $kc) (i32.const 2)))))
      (local.set $j (i32.add (local.get $j0) (local.get $jj)))))
  (block $done (loop $panels
    (br_if $done (i32.ge_u (local.get $j) (local.get $jEnd)))
    (if (i32.and (i32.eqz (local.get $transB)) (i32.le_u (i32.add (local.get $j) (i32.const 8)) (local.get $jEnd)))
      (then
        ;; rows of B are contiguous: copy 8 floats per k step
        (local.set $src (i32.add (local.get $b)
          (i32.shl (i32.add (i32.mul (local.get $p0) (local.get $n)) (local.get $j)) (i32.const 2))))
        (local.set $stride (i32.shl (local.get $n) (i32.const 2)))
        (local.set $p (i32.const 0))
        (loop $rows
          (v128.store (local.get $dst) (v128.load (local.get $src)))
          (v128.store offset=16 (local.get $dst) (v128.load offset=16 (local.get $src)))
          (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
          (local.set $src (i32.add (local.get $src) (local.get $stride)))
          (br_if $rows (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc)))))
      (else
        (if (i32.and (local.get $transB) (i32.le_u (i32.add (local.get $j) (i32.const 8)) (local.get $jEnd)))
          (then
            ;; op(B)[p][col] = b[col*k + p]: 8 row streams of b. Four k steps at a time: load
            ;; 4 floats from each row, transpose the two 4x4 blocks with shuffles, store 4 panel
            ;; rows; the last kc % 4 steps go one float at a time.
            (local.set $src (i32.add (local.get $b)
              (i32.shl (i32.add (i32.mul (local.get $j) (local.get $k)) (local.get $p0)) (i32.const 2))))
            (local.set $stride (i32.shl (local.get $k) (i32.const 2)))
            (local.set $p (i32.const 0))
            (block $quadsDone (loop $quads
              (br_if $quadsDone (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $kc)))
              (local.set $v0 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 0)))))
              (local.set $v1 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 1)))))
              (local.set $v2 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 2)))))
              (local.set $v3 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 3)))))
              (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v0) (local.get $v1)))
              (local.set $t1 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v2) (local.get $v3)))
              (local.set $t2 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v0) (local.get $v1)))
              (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v2) (local.get $v3)))
              (v128.store offset=0 (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1)))
              (v128.store offset=32 (local.get $dst) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1)))
              (v128.store offset=64 (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t2) (local.get $t3)))
              (v128.store offset=96 (local.get $dst) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t2) (local.get $t3)))
              (local.set $v0 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 4)))))
              (local.set $v1 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 5)))))
              (local.set $v2 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 6)))))
              (local.set $v3 (v128.load (i32.add (local.get $src) (i32.mul (local.get $stride) (i32.const 7)))))
              (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v0) (local.get $v1)))
              (local.set $t1 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v2) (local.get $v3)))
              (local.set $t2 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v0) (local.get $v1)))
              (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v2) (local.get $v3)))
              (v128.store offset=16 (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1)))
              (v128.store offset=48 (local.get $dst) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1)))
              (v128.store offset=80 (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t2) (local.get $t3)))
              (v128.store offset=112 (local.get $dst) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t2) (local.get $t3)))
              (local.set $dst (i32.add (local.get $dst) (i32.const 128)))
              (local.set $src (i32.add (local.get $src) (i32.const 16)))
              (local.set $p (i32.add (local.get $p) (i32.const 4)))
              (br $quads)))
            (block $rowsTDone (loop $rowsT
              (br_if $rowsTDone (i32.ge_u (local.get $p) (local.get $kc)))
              (local.set $col (local.get $src))
              (f32.store offset=0 (local.get $dst) (f32.load (local.get $col)))
              (f32.store offset=4 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (f32.store offset=8 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (f32.store offset=12 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (f32.store offset=16 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (f32.store offset=20 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (f32.store offset=24 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (f32.store offset=28 (local.get $dst) (f32.load (local.tee $col (i32.add (local.get $col) (local.get $stride)))))
              (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
              (local.set $src (i32.add (local.get $src) (i32.const 4)))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br $rowsT))))
          (else
            ;; last, partial panel: element by element, zero-padding missing columns
            (local.set $p (i32.const 0))
            (loop $rowsE
              (local.set $jj (i32.const 0))
              (loop $cols
                (local.set $col (i32.add (local.get $j) (local.get $jj)))
                (f32.store (local.get $dst)
                  (if (result f32) (i32.lt_u (local.get $col) (local.get $jEnd))
                    (then (f32.load (i32.add (local.get $b) (i32.shl
                      (if (result i32) (local.get $transB)
                        (then (i32.add (i32.mul (local.get $col) (local.get $k)) (i32.add (local.get $p0) (local.get $p))))
                        (else (i32.add (i32.mul (i32.add (local.get $p0) (local.get $p)) (local.get $n)) (local.get $col))))
                      (i32.const 2)))))
                    (else (f32.const 0))))
                (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
                (br_if $cols (i32.lt_u (local.tee $jj (i32.add (local.get $jj) (i32.const 1))) (i32.const 8))))
              (br_if $rowsE (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc))))))))
    (local.set $j (i32.add (local.get $j) (i32.const 8)))
    (br $panels))))

;; Packs op(A)[i0:i0+mc, p0:p0+kc] into 4-row panels [p][4].
(func $pack_a (param $a i32) (param $m i32) (param $k i32) (param $transA i32)
  (param $i0 i32) (param $mc i32) (param $p0 i32) (param $kc i32) (param $dst i32)
  (local $i i32) (local $iEnd i32) (local $p i32) (local $ii i32) (local $row i32) (local $src i32)
  (local $stride i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
  (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
  (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
  (local.set $iEnd (i32.add (local.get $i0) (local.get $mc)))
  (local.set $i (local.get $i0))
  (if (i32.and (local.get $transA) (i32.ge_u (local.get $mc) (i32.const 4)))
    (then
      ;; Transposed: the rows i0.. of op(A) are contiguous in each row p of a, so read each
      ;; such row once and scatter 4-float pieces to the panels (panel q at q*kc*16 bytes),
      ;; instead of striding m*4 bytes per load panel by panel.
      (local.set $ii (i32.and (local.get $mc) (i32.const -4)))
      (local.set $stride (i32.shl (local.get $kc) (i32.const 4)))
      (local.set $p (i32.const 0))
      (loop $rowsR
        (local.set $src (i32.add (local.get $a)
          (i32.shl (i32.add (i32.mul (i32.add (local.get $p0) (local.get $p)) (local.get $m)) (local.get $i0)) (i32.const 2))))
        (local.set $row (i32.add (local.get $dst) (i32.shl (local.get $p) (i32.const 4))))
        (local.set $r1 (i32.const 0))
        (loop $piece
          (v128.store (local.get $row) (v128.load (local.get $src)))
          (local.set $src (i32.add (local.get $src) (i32.const 16)))
          (local.set $row (i32.add (local.get $row) (local.get $stride)))
          (br_if $piece (i32.lt_u (local.tee $r1 (i32.add (local.get $r1) (i32.const 4))) (local.get $ii))))
        (br_if $rowsR (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc))))
      (local.set $dst (i32.add (local.get $dst) (i32.mul (local.get $ii) (i32.shl (local.get $kc) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i0) (local.get $ii)))))
  (block $done (loop $panels
    (br_if $done (i32.ge_u (local.get $i) (local.get $iEnd)))
    (if (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $iEnd))
      (then
        (if (local.get $transA)
          (then
            ;; op(A)[row][p] = a[p*m + row]: the 4 rows of a panel are contiguous
            (local.set $src (i32.add (local.get $a)
              (i32.shl (i32.add (i32.mul (local.get $p0) (local.get $m)) (local.get $i)) (i32.const 2))))
            (local.set $stride (i32.shl (local.get $m) (i32.const 2)))
            (local.set $p (i32.const 0))
            (loop $rowsT
              (v128.store (local.get $dst) (v128.load (local.get $src)))
              (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
              (local.set $src (i32.add (local.get $src) (local.get $stride)))
              (br_if $rowsT (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc)))))
          (else
            ;; four row streams of a: four k steps at a time, transposing 4x4 blocks with
            ;; shuffles; the last kc % 4 steps one float at a time
            (local.set $src (i32.add (local.get $a)
              (i32.shl (i32.add (i32.mul (local.get $i) (local.get $k)) (local.get $p0)) (i32.const 2))))
            (local.set $stride (i32.shl (local.get $k) (i32.const 2)))
            (local.set $r1 (i32.add (local.get $src) (local.get $stride)))
            (local.set $r2 (i32.add (local.get $r1) (local.get $stride)))
            (local.set $r3 (i32.add (local.get $r2) (local.get $stride)))
            (local.set $p (i32.const 0))
            (block $quadsDone (loop $quads
              (br_if $quadsDone (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $kc)))
              (local.set $v0 (v128.load (local.get $src)))
              (local.set $v1 (v128.load (local.get $r1)))
              (local.set $v2 (v128.load (local.get $r2)))
              (local.set $v3 (v128.load (local.get $r3)))
              (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v0) (local.get $v1)))
              (local.set $t1 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v2) (local.get $v3)))
              (local.set $t2 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v0) (local.get $v1)))
              (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v2) (local.get $v3)))
              (v128.store offset=0 (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1)))
              (v128.store offset=16 (local.get $dst) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1)))
              (v128.store offset=32 (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t2) (local.get $t3)))
              (v128.store offset=48 (local.get $dst) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t2) (local.get $t3)))
              (local.set $dst (i32.add (local.get $dst) (i32.const 64)))
              (local.set $src (i32.add (local.get $src) (i32.const 16)))
              (local.set $r1 (i32.add (local.get $r1) (i32.const 16)))
              (local.set $r2 (i32.add (local.get $r2) (i32.const 16)))
              (local.set $r3 (i32.add (local.get $r3) (i32.const 16)))
              (local.set $p (i32.add (local.get $p) (i32.const 4)))
              (br $quads)))
            (block $rowsNDone (loop $rowsN
              (br_if $rowsNDone (i32.ge_u (local.get $p) (local.get $kc)))
              (f32.store offset=0 (local.get $dst) (f32.load (local.get $src)))
              (f32.store offset=4 (local.get $dst) (f32.load (local.get $r1)))
              (f32.store offset=8 (local.get $dst) (f32.load (local.get $r2)))
              (f32.store offset=12 (local.get $dst) (f32.load (local.get $r3)))
              (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
              (local.set $src (i32.add (local.get $src) (i32.const 4)))
              (local.set $r1 (i32.add (local.get $r1) (i32.const 4)))
              (local.set $r2 (i32.add (local.get $r2) (i32.const 4)))
              (local.set $r3 (i32.add (local.get $r3) (i32.const 4)))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br $rowsN))))))
      (else
        ;; last, partial panel: zero-pad the missing rows
        (local.set $p (i32.const 0))
        (loop $rowsE
          (local.set $ii (i32.const 0))
          (loop $rws
            (local.set $row (i32.add (local.get $i) (local.get $ii)))
            (f32.store (local.get $dst)
              (if (result f32) (i32.lt_u (local.get $row) (local.get $iEnd))
                (then (f32.load (i32.add (local.get $a) (i32.shl
                  (if (result i32) (local.get $transA)
                    (then (i32.add (i32.mul (i32.add (local.get $p0) (local.get $p)) (local.get $m)) (local.get $row)))
                    (else (i32.add (i32.mul (local.get $row) (local.get $k)) (i32.add (local.get $p0) (local.get $p)))))
                  (i32.const 2)))))
                (else (f32.const 0))))
            (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
            (br_if $rws (i32.lt_u (local.tee $ii (i32.add (local.get $ii) (i32.const 1))) (i32.const 4))))
          (br_if $rowsE (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 1))) (local.get $kc))))))
    (local.set $i (i32.add (local.get $i) (i32.const 4)))
    (br $panels))))

