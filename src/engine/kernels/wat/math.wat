;; exp / log approximations and the flat element-wise ops (fragment of the kernels module).
;; Each op is written once as a loop over whole v128 vectors ($*_v, count in vectors); the
;; exported wrapper runs it over n & ~3 elements and then once more over a 16-byte temp
;; copy of the last n & 3 elements, so no op needs a scalar twin.

;; 256 bytes per instance (set by set_tmp) for tail staging: 16-byte slots 0..15.
;; 512 bytes per instance (set by set_tmp): 16-byte slots 0..15 for tail staging, then the
;; exp constants. V8 rebuilds a v128.const from immediates each time it is used (several
;; instructions), so hot code loads them from this table instead.
(global $tmp (mut i32) (i32.const 0))
(func (export "set_tmp") (param $p i32)
  (global.set $tmp (local.get $p))
  (v128.store offset=256 (local.get $p) (v128.const f32x4 88.37 88.37 88.37 88.37)) ;; CLAMP_HI
  (v128.store offset=272 (local.get $p) (v128.const f32x4 -87.33 -87.33 -87.33 -87.33)) ;; CLAMP_LO
  (v128.store offset=288 (local.get $p) (v128.const f32x4 1.44269504 1.44269504 1.44269504 1.44269504)) ;; LOG2E
  (v128.store offset=304 (local.get $p) (v128.const f32x4 12582912 12582912 12582912 12582912)) ;; MAGIC
  (v128.store offset=320 (local.get $p) (v128.const f32x4 -0.693359375 -0.693359375 -0.693359375 -0.693359375)) ;; LN2_HI
  (v128.store offset=336 (local.get $p) (v128.const f32x4 2.12194440e-4 2.12194440e-4 2.12194440e-4 2.12194440e-4)) ;; LN2_LO
  (v128.store offset=352 (local.get $p) (v128.const f32x4 1.38888889e-3 1.38888889e-3 1.38888889e-3 1.38888889e-3)) ;; P6
  (v128.store offset=368 (local.get $p) (v128.const f32x4 8.33333333e-3 8.33333333e-3 8.33333333e-3 8.33333333e-3)) ;; P5
  (v128.store offset=384 (local.get $p) (v128.const f32x4 4.16666667e-2 4.16666667e-2 4.16666667e-2 4.16666667e-2)) ;; P4
  (v128.store offset=400 (local.get $p) (v128.const f32x4 0.166666667 0.166666667 0.166666667 0.166666667)) ;; P3
  (v128.store offset=416 (local.get $p) (v128.const f32x4 0.5 0.5 0.5 0.5)) ;; HALF
  (v128.store offset=432 (local.get $p) (v128.const f32x4 1 1 1 1)) ;; ONE
  (v128.store offset=448 (local.get $p) (v128.const i32x4 127 127 127 127)))

;; Copies count (< 4) floats from src into temp slot `slot` (zero-padded); returns its address.
(func $stage (param $src i32) (param $count i32) (param $slot i32) (result i32)
  (local $dst i32)
  (local.set $dst (i32.add (global.get $tmp) (i32.shl (local.get $slot) (i32.const 4))))
  (v128.store (local.get $dst) (v128.const i32x4 0 0 0 0))
  (memory.copy (local.get $dst) (local.get $src) (i32.shl (local.get $count) (i32.const 2)))
  (local.get $dst))
(func $unstage (param $slot i32) (param $dst i32) (param $count i32)
  (memory.copy (local.get $dst) (i32.add (global.get $tmp) (i32.shl (local.get $slot) (i32.const 4)))
    (i32.shl (local.get $count) (i32.const 2))))

;; e^x per lane, ~2e-7 relative: x = n ln2 + r, |r| <= ln2/2, e^r by its degree-6 Taylor
;; polynomial (remainder < 1.2e-7), 2^n built in the exponent bits. Below -87.33 gives 0
;; (2^n would leave the normal range); above 88.37 saturates near FLT_MAX.
;; Rounding trick: t = x log2e + 1.5*2^23 holds n = round(x log2e) in its low mantissa bits,
;; so n = t - 1.5*2^23 and (bits(t) + 127) << 23 = bits(2^n) (the high bits shift out),
;; cheaper than f32x4.nearest + i32x4.trunc_sat_f32x4_s.
(func $vexp (param $x v128) (result v128)
  (local $k i32) (local $c v128) (local $t v128) (local $n v128) (local $r v128) (local $p v128)
  (local.set $k (global.get $tmp))
  (local.set $c (f32x4.max (f32x4.min (local.get $x) (v128.load offset=256 (local.get $k)))
    (v128.load offset=272 (local.get $k))))
  (local.set $t (MADD (local.get $c) (v128.load offset=288 (local.get $k))
    (v128.load offset=304 (local.get $k))))
  (local.set $n (f32x4.sub (local.get $t) (v128.load offset=304 (local.get $k))))
  ;; ln 2 split in a short high part (n * hi is exact) and the rest
  (local.set $r (MADD (local.get $n) (v128.load offset=320 (local.get $k)) (local.get $c)))
  (local.set $r (MADD (local.get $n) (v128.load offset=336 (local.get $k)) (local.get $r)))
  (local.set $p (MADD (v128.load offset=352 (local.get $k)) (local.get $r)
    (v128.load offset=368 (local.get $k))))
  (local.set $p (MADD (local.get $p) (local.get $r) (v128.load offset=384 (local.get $k))))
  (local.set $p (MADD (local.get $p) (local.get $r) (v128.load offset=400 (local.get $k))))
  (local.set $p (MADD (local.get $p) (local.get $r) (v128.load offset=416 (local.get $k))))
  (local.set $p (MADD (local.get $p) (local.get $r) (v128.load offset=432 (local.get $k))))
  (local.set $p (MADD (local.get $p) (local.get $r) (v128.load offset=432 (local.get $k))))
  (local.set $p (f32x4.mul (local.get $p)
    (i32x4.shl (i32x4.add (local.get $t) (v128.load offset=448 (local.get $k))) (i32.const 23))))
  ;; flush to zero below the clamp (keeps NaN: the comparison is false for NaN)
  (v128.andnot (local.get $p) (f32x4.lt (local.get $x) (v128.load offset=272 (local.get $k)))))

(func $exp_s (param $x f32) (result f32)
  (f32x4.extract_lane 0 (call $vexp (f32x4.splat (local.get $x)))))

;; Natural log in f64 (used once per row, so precision is cheap): x = m 2^e with
;; m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) with s = (m-1)/(m+1), |s| < 0.172.
(func $log (param $x f64) (result f64)
  (local $bits i64) (local $e f64) (local $m f64) (local $s f64) (local $s2 f64)
  (if (i32.or (f64.le (local.get $x) (f64.const 0)) (f64.ne (local.get $x) (local.get $x)))
    (then (return (select (f64.const -inf) (f64.const nan) (f64.eq (local.get $x) (f64.const 0))))))
  (if (f64.eq (local.get $x) (f64.const inf)) (then (return (local.get $x))))
  ;; scale subnormals into the normal range first
  (if (f64.lt (local.get $x) (f64.const 0x1p-1000))
    (then (return (f64.sub (call $log (f64.mul (local.get $x) (f64.const 0x1p100))) (f64.const 69.31471805599453)))))
  (local.set $bits (i64.reinterpret_f64 (local.get $x)))
  (local.set $e (f64.convert_i64_s (i64.sub (i64.shr_u (local.get $bits) (i64.const 52)) (i64.const 1023))))
  (local.set $m (f64.reinterpret_i64 (i64.or (i64.and (local.get $bits) (i64.const 0x000fffffffffffff)) (i64.const 0x3ff0000000000000))))
  (if (f64.gt (local.get $m) (f64.const 1.4142135623730951))
    (then (local.set $m (f64.mul (local.get $m) (f64.const 0.5))) (local.set $e (f64.add (local.get $e) (f64.const 1)))))
  (local.set $s (f64.div (f64.sub (local.get $m) (f64.const 1)) (f64.add (local.get $m) (f64.const 1))))
  (local.set $s2 (f64.mul (local.get $s) (local.get $s)))
  (f64.add (f64.mul (local.get $e) (f64.const 0.6931471805599453))
    (f64.mul (f64.mul (f64.const 2) (local.get $s))
      (f64.add (f64.const 1) (f64.mul (local.get $s2)
        (f64.add (f64.const 0.3333333333333333) (f64.mul (local.get $s2)
          (f64.add (f64.const 0.2) (f64.mul (local.get $s2)
            (f64.add (f64.const 0.14285714285714285) (f64.mul (local.get $s2)
              (f64.add (f64.const 0.1111111111111111) (f64.mul (local.get $s2)
                (f64.add (f64.const 0.09090909090909091) (f64.mul (local.get $s2) (f64.const 0.07692307692307693))))))))))))))))

;; Test hooks: exp over an array, log of one number.
(func $exp_array_v (param $x i32) (param $o i32) (param $nv i32)
  (block $d (loop $l (br_if $d (i32.eqz (local.get $nv)))
    (v128.store (local.get $o) (call $vexp (v128.load (local.get $x))))
    (local.set $x (i32.add (local.get $x) (i32.const 16))) (local.set $o (i32.add (local.get $o) (i32.const 16)))
    (local.set $nv (i32.sub (local.get $nv) (i32.const 1))) (br $l))))
(func (export "exp_array") (param $x i32) (param $o i32) (param $n i32)
  (local $off i32) (local $t i32)
  (call $exp_array_v (local.get $x) (local.get $o) (i32.shr_u (local.get $n) (i32.const 2)))
  (local.set $off (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
  (if (local.tee $t (i32.and (local.get $n) (i32.const 3))) (then
    (call $exp_array_v (call $stage (i32.add (local.get $x) (local.get $off)) (local.get $t) (i32.const 0))
      (call $stage (i32.add (local.get $o) (local.get $off)) (local.get $t) (i32.const 1)) (i32.const 1))
    (call $unstage (i32.const 1) (i32.add (local.get $o) (local.get $off)) (local.get $t)))))
(func (export "log_f64") (param $x f64) (result f64) (call $log (local.get $x)))

;; ---- add / mul / axpy
(func $add_v (param $a i32) (param $b i32) (param $o i32) (param $nv i32)
  (block $d (loop $l (br_if $d (i32.eqz (local.get $nv)))
    (v128.store (local.get $o) (f32x4.add (v128.load (local.get $a)) (v128.load (local.get $b))))
    (local.set $a (i32.add (local.get $a) (i32.const 16))) (local.set $b (i32.add (local.get $b) (i32.const 16)))
    (local.set $o (i32.add (local.get $o) (i32.const 16)))
    (local.set $nv (i32.sub (local.get $nv) (i32.const 1))) (br $l))))
(func $mul_v (param $a i32) (param $b i32) (param $o i32) (param $nv i32)
  (block $d (loop $l (br_if $d (i32.eqz (local.get $nv)))
    (v128.store (local.get $o) (f32x4.mul (v128.load (local.get $a)) (v128.load (local.get $b))))
    (local.set $a (i32.add (local.get $a) (i32.const 16))) (local.set $b (i32.add (local.get $b) (i32.const 16)))
    (local.set $o (i32.add (local.get $o) (i32.const 16)))
    (local.set $nv (i32.sub (local.get $nv) (i32.const 1))) (br $l))))
;; y += alpha * x (alpha arrives in $a's place as a splat, $b unused): shares the 3-pointer shape
(func $axpy_v (param $alpha f32) (param $x i32) (param $y i32) (param $nv i32)
  (local $al v128)
  (local.set $al (f32x4.splat (local.get $alpha)))
  (block $d (loop $l (br_if $d (i32.eqz (local.get $nv)))
    (v128.store (local.get $y) (f32x4.add (v128.load (local.get $y)) (f32x4.mul (local.get $al) (v128.load (local.get $x)))))
    (local.set $x (i32.add (local.get $x) (i32.const 16))) (local.set $y (i32.add (local.get $y) (i32.const 16)))
    (local.set $nv (i32.sub (local.get $nv) (i32.const 1))) (br $l))))

(func (export "add") (param $a i32) (param $b i32) (param $o i32) (param $n i32)
  (local $off i32) (local $t i32)
  (call $add_v (local.get $a) (local.get $b) (local.get $o) (i32.shr_u (local.get $n) (i32.const 2)))
  (local.set $off (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
  (if (local.tee $t (i32.and (local.get $n) (i32.const 3))) (then
    (call $add_v (call $stage (i32.add (local.get $a) (local.get $off)) (local.get $t) (i32.const 0))
      (call $stage (i32.add (local.get $b) (local.get $off)) (local.get $t) (i32.const 1))
      (call $stage (i32.add (local.get $o) (local.get $off)) (local.get $t) (i32.const 2)) (i32.const 1))
    (call $unstage (i32.const 2) (i32.add (local.get $o) (local.get $off)) (local.get $t)))))
(func (export "mul") (param $a i32) (param $b i32) (param $o i32) (param $n i32)
  (local $off i32) (local $t i32)
  (call $mul_v (local.get $a) (local.get $b) (local.get $o) (i32.shr_u (local.get $n) (i32.const 2)))
  (local.set $off (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
  (if (local.tee $t (i32.and (local.get $n) (i32.const 3))) (then
    (call $mul_v (call $stage (i32.add (local.get $a) (local.get $off)) (local.get $t) (i32.const 0))
      (call $stage (i32.add (local.get $b) (local.get $off)) (local.get $t) (i32.const 1))
      (call $stage (i32.add (local.get $o) (local.get $off)) (local.get $t) (i32.const 2)) (i32.const 1))
    (call $unstage (i32.const 2) (i32.add (local.get $o) (local.get $off)) (local.get $t)))))
(func (export "axpy") (param $alpha f32) (param $x i32) (param $y i32) (param $n i32)
  (local $off i32) (local $t i32)
  (call $axpy_v (local.get $alpha) (local.get $x) (local.get $y) (i32.shr_u (local.get $n) (i32.const 2)))
  (local.set $off (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
  (if (local.tee $t (i32.and (local.get $n) (i32.const 3))) (then
    (call $axpy_v (local.get $alpha) (call $stage (i32.add (local.get $x) (local.get $off)) (local.get $t) (i32.const 0))
      (call $stage (i32.add (local.get $y) (local.get $off)) (local.get $t) (i32.const 1)) (i32.const 1))
    (call $unstage (i32.const 1) (i32.add (local.get $y) (local.get $off)) (local.get $t)))))

;; sum of squares accumulated in f64 lanes (gradient norms of millions of values)
(func (export "sum_squares") (param $x i32) (param $n i32) (result f64)
  (local $lo v128) (local $hi v128) (local $v v128) (local $i i32) (local $s f64)
  (block $d (loop $l (br_if $d (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
    (local.set $v (v128.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2)))))
    (local.set $lo (f64x2.add (local.get $lo) (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (f64x2.promote_low_f32x4 (local.get $v)))))
    (local.set $v (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v)))
    (local.set $hi (f64x2.add (local.get $hi) (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (f64x2.promote_low_f32x4 (local.get $v)))))
    (local.set $i (i32.add (local.get $i) (i32.const 4))) (br $l)))
  (local.set $lo (f64x2.add (local.get $lo) (local.get $hi)))
  (local.set $s (f64.add (f64x2.extract_lane 0 (local.get $lo)) (f64x2.extract_lane 1 (local.get $lo))))
  (block $d2 (loop $l2 (br_if $d2 (i32.ge_u (local.get $i) (local.get $n)))
    (local.set $s (f64.add (local.get $s) (f64.mul
      (f64.promote_f32 (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2)))))
      (f64.promote_f32 (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))))))
    (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l2)))
  (local.get $s))
