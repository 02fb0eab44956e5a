//! Every filter operation leaves the caller's vector registers as it found them.
//!
//! Callers compiled with AVX (`-C target-cpu=native`, `x86-64-v3`, or code inside a
//! `#[target_feature(enable = "avx2")]` function) keep 256-bit values in ymm registers across
//! calls they expect to be inlined or to follow the calling convention. An inlined kernel that
//! zeroes the upper halves of those registers (`vzeroupper`) without telling the compiler
//! corrupts such values in safe code. Each check here runs an operation in a loop inside an
//! AVX2 (and, where the CPU has it, an AVX-512) function while eight `u32` accumulators live in
//! one vector register, and compares the accumulators with the same arithmetic done on plain
//! integers: a clobbered register shows up as wrong upper lanes.
//!
//! The same checks run on every kernel this CPU has, through every public entry point of every
//! filter type, including the single-key lookups that inline into the caller.
//!
//! A binary of its own, not a module of `tests/suite`: whether a missing clobber shows depends
//! on register allocation, and a missing `zmm16`/`zmm17` clobber of the avx512 kernel shows
//! only in a release build, so `.ci/run` also runs this file with `--release`, which must not
//! mean building the whole suite a fourth time.

#![cfg(target_arch = "x86_64")]

use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_mullo_epi32, _mm256_set1_epi32, _mm256_setr_epi32,
    _mm256_storeu_si256,
};
use std::hint::black_box;

use splitbloom::{
    AtomicFilter, CountingFilter, Filter, FilterRef, Kernel, ScalableFilter, WideFilter,
    WideFilterRef, WindowFilter,
};

/// What a check runs once per round: any closure, or a type whose `run` is forced inline, for an
/// operation whose closure the compiler would keep out of line (a call spills every
/// accumulator, so a clobbered register could not show).
trait Operation {
    fn run(&mut self, round: u64) -> u64;
}

impl<F: FnMut(u64) -> u64> Operation for F {
    #[inline(always)]
    fn run(&mut self, round: u64) -> u64 {
        self(round)
    }
}

/// Iterations per check: enough that a clobber cannot cancel out by chance.
const ROUNDS: u64 = 64;

/// The accumulator update, on plain integers: `acc[i] = acc[i] * (2i + 3) + value + i`.
fn scalar_accumulate(operation: &mut impl Operation) -> [u32; 8] {
    let mut acc: [u32; 8] = core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1));
    for round in 0..ROUNDS {
        let value = operation.run(round) as u32;
        for (i, lane) in acc.iter_mut().enumerate() {
            *lane = lane
                .wrapping_mul(2 * i as u32 + 3)
                .wrapping_add(value)
                .wrapping_add(i as u32);
        }
    }
    acc
}

/// The same update with the accumulators in one ymm register, live across `operation`.
#[target_feature(enable = "avx2")]
fn avx2_accumulate<F: Operation>(operation: &mut F) -> [u32; 8] {
    let mut acc: __m256i = _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0);
    let seeds: [u32; 8] = core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1));
    acc = _mm256_add_epi32(
        acc,
        _mm256_setr_epi32(
            seeds[0] as i32,
            seeds[1] as i32,
            seeds[2] as i32,
            seeds[3] as i32,
            seeds[4] as i32,
            seeds[5] as i32,
            seeds[6] as i32,
            seeds[7] as i32,
        ),
    );
    let multipliers = _mm256_setr_epi32(3, 5, 7, 9, 11, 13, 15, 17);
    let offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for round in 0..ROUNDS {
        let value = operation.run(round) as u32;
        acc = _mm256_mullo_epi32(acc, multipliers);
        acc = _mm256_add_epi32(acc, _mm256_set1_epi32(value as i32));
        acc = _mm256_add_epi32(acc, offsets);
    }
    let mut out = [0u32; 8];
    // SAFETY: `out` is 32 writable bytes; `storeu` needs no alignment.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), acc) };
    out
}

/// The same update with the accumulators in the low 256 bits of a zmm register, and a second
/// zmm value live beside it whose upper half must survive too.
#[target_feature(enable = "avx512f")]
fn avx512_accumulate<F: Operation>(operation: &mut F) -> [u32; 8] {
    use core::arch::x86_64::{
        _mm512_add_epi32, _mm512_mullo_epi32, _mm512_set1_epi32, _mm512_setr_epi32,
        _mm512_storeu_si512,
    };
    let seeds: [u32; 8] = core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1));
    // Lanes 0..8 carry the accumulators; lanes 8..16 carry a copy that must end up equal.
    let mut acc = _mm512_setr_epi32(
        seeds[0] as i32,
        seeds[1] as i32,
        seeds[2] as i32,
        seeds[3] as i32,
        seeds[4] as i32,
        seeds[5] as i32,
        seeds[6] as i32,
        seeds[7] as i32,
        seeds[0] as i32,
        seeds[1] as i32,
        seeds[2] as i32,
        seeds[3] as i32,
        seeds[4] as i32,
        seeds[5] as i32,
        seeds[6] as i32,
        seeds[7] as i32,
    );
    let multipliers = _mm512_setr_epi32(3, 5, 7, 9, 11, 13, 15, 17, 3, 5, 7, 9, 11, 13, 15, 17);
    let offsets = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
    for round in 0..ROUNDS {
        let value = operation.run(round) as u32;
        acc = _mm512_mullo_epi32(acc, multipliers);
        acc = _mm512_add_epi32(acc, _mm512_set1_epi32(value as i32));
        acc = _mm512_add_epi32(acc, offsets);
    }
    let mut out = [0u32; 16];
    // SAFETY: `out` is 64 writable bytes; `storeu` needs no alignment.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), acc) };
    assert_eq!(
        out[..8],
        out[8..],
        "the upper 256 bits of a zmm register changed"
    );
    out[..8].try_into().unwrap()
}

/// Twenty-four zmm accumulators live at once, so that some must sit in `zmm16` and up (the
/// registers the AVX-512 kernel's inline lookup uses): copy `j` starts from the seeds plus `j`
/// and is checked against the same arithmetic on plain integers. Returns copy 0's low lanes.
#[target_feature(enable = "avx512f")]
fn avx512_high_accumulate<F: Operation>(operation: &mut F) -> [u32; 8] {
    use core::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_mullo_epi32, _mm512_set1_epi32, _mm512_setr_epi32,
        _mm512_storeu_si512,
    };
    const COPIES: usize = 24;
    let seeds: [u32; 8] = core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1));
    let lane = |i: usize, j: usize| seeds[i % 8].wrapping_add(j as u32) as i32;
    let mut accs: [__m512i; COPIES] = core::array::from_fn(|j| {
        _mm512_setr_epi32(
            lane(0, j),
            lane(1, j),
            lane(2, j),
            lane(3, j),
            lane(4, j),
            lane(5, j),
            lane(6, j),
            lane(7, j),
            lane(8, j),
            lane(9, j),
            lane(10, j),
            lane(11, j),
            lane(12, j),
            lane(13, j),
            lane(14, j),
            lane(15, j),
        )
    });
    let multipliers = _mm512_setr_epi32(3, 5, 7, 9, 11, 13, 15, 17, 3, 5, 7, 9, 11, 13, 15, 17);
    let offsets = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
    // A fixed array, not a `Vec`: a call to grow one inside the loop would make every
    // accumulator spill to the stack, where a clobbered register cannot touch it.
    let mut values = [0u32; ROUNDS as usize];
    for round in 0..ROUNDS {
        let value = operation.run(round) as u32;
        values[round as usize] = value;
        for acc in &mut accs {
            *acc = _mm512_add_epi32(
                _mm512_add_epi32(
                    _mm512_mullo_epi32(*acc, multipliers),
                    _mm512_set1_epi32(value as i32),
                ),
                offsets,
            );
        }
    }
    for (j, acc) in accs.iter().enumerate() {
        let mut out = [0u32; 16];
        // SAFETY: `out` is 64 writable bytes; `storeu` needs no alignment.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), *acc) };
        let mut expected: [u32; 8] = core::array::from_fn(|i| seeds[i].wrapping_add(j as u32));
        for &value in &values {
            for (i, lane) in expected.iter_mut().enumerate() {
                *lane = lane
                    .wrapping_mul(2 * i as u32 + 3)
                    .wrapping_add(value)
                    .wrapping_add(i as u32);
            }
        }
        assert_eq!(out[..8], expected, "zmm accumulator {j} changed");
        assert_eq!(
            out[8..],
            expected,
            "zmm accumulator {j}'s upper half changed"
        );
    }
    let mut first = [0u32; 16];
    // SAFETY: as above.
    unsafe { _mm512_storeu_si512(first.as_mut_ptr().cast(), accs[0]) };
    first[..8].try_into().unwrap()
}

/// Runs `make_operation()`'s operation through the scalar accumulator and through every vector
/// accumulator this CPU can run, each on a fresh operation so that state-changing operations
/// see the same history, and demands identical results.
fn check<F: Operation>(name: &str, mut make_operation: impl FnMut() -> F) {
    let mut reference = make_operation();
    let expected = scalar_accumulate(&mut reference);
    if std::is_x86_feature_detected!("avx2") {
        let mut operation = make_operation();
        // SAFETY: the CPU has AVX2, checked just above.
        let got = unsafe { avx2_accumulate(&mut operation) };
        assert_eq!(
            got, expected,
            "{name}: a ymm register live across the call changed"
        );
    }
    if std::is_x86_feature_detected!("avx512f") {
        let mut operation = make_operation();
        // SAFETY: the CPU has AVX-512F, checked just above.
        let got = unsafe { avx512_accumulate(&mut operation) };
        assert_eq!(
            got, expected,
            "{name}: a zmm register live across the call changed"
        );
        let mut operation = make_operation();
        // SAFETY: the CPU has AVX-512F, checked just above.
        let got = unsafe { avx512_high_accumulate(&mut operation) };
        assert_eq!(
            got, expected,
            "{name}: a register among zmm16-zmm31 live across the call changed"
        );
    }
}

/// Hashes spread over the whole filter.
fn hash_of(round: u64) -> u64 {
    round.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555
}

/// A filter with half of the rounds' keys and hashes in it, on `kernel`.
fn filter_on(kernel: Kernel) -> Filter {
    let mut filter = Filter::with_num_blocks(64)
        .unwrap()
        .with_kernel(kernel)
        .unwrap();
    for round in (0..ROUNDS).step_by(2) {
        filter.insert(&round);
        filter.insert_hash(hash_of(round));
    }
    filter
}

#[test]
fn filter_operations_keep_caller_vector_registers() {
    for kernel in Kernel::available() {
        let filter = filter_on(kernel);
        let bytes = filter.to_bytes();
        check(&format!("{kernel} Filter::contains_hash"), || {
            let filter = filter.clone();
            move |round| u64::from(filter.contains_hash(hash_of(round)))
        });
        check(&format!("{kernel} Filter::contains"), || {
            let filter = filter.clone();
            move |round| u64::from(filter.contains(&round))
        });
        check(&format!("{kernel} Filter::insert_hash"), || {
            let mut filter = Filter::with_num_blocks(4)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            move |round| u64::from(filter.insert_hash(hash_of(round)))
        });
        check(&format!("{kernel} Filter::insert"), || {
            let mut filter = Filter::with_num_blocks(4)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            move |round| u64::from(filter.insert(&(round / 2)))
        });
        check(&format!("{kernel} Filter::contains_batch"), || {
            let filter = filter.clone();
            move |round| {
                let keys = [round, round + 1, round + 2];
                let mut out = [false; 3];
                filter.contains_batch(black_box(&keys), &mut out);
                out.iter().map(|&b| u64::from(b)).sum::<u64>()
                    + 7 * filter.count_contained(&keys) as u64
            }
        });
        check(&format!("{kernel} Filter::contains_hash_batch"), || {
            let filter = filter.clone();
            move |round| {
                let hashes = [hash_of(round), hash_of(round + 1)];
                let mut out = [false; 2];
                filter.contains_hash_batch(black_box(&hashes), &mut out);
                u64::from(out[0])
                    + 2 * u64::from(out[1])
                    + 5 * filter.count_contained_hashes(&hashes) as u64
            }
        });
        check(&format!("{kernel} Filter::insert_batch"), || {
            let mut filter = Filter::with_num_blocks(4)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            move |round| {
                filter.insert_batch(black_box(&[round / 3, round / 5]));
                filter.insert_hash_batch(black_box(&[hash_of(round / 4)]));
                u64::from(filter.contains(&(round + 1)))
            }
        });
        check(&format!("{kernel} FilterRef"), || {
            let view = FilterRef::<splitbloom::Xxh3>::from_bytes(&bytes)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            move |round| {
                let mut out = [false; 2];
                view.contains_hash_batch(black_box(&[hash_of(round), round]), &mut out);
                u64::from(view.contains_hash(hash_of(round)))
                    + 2 * u64::from(view.contains(&round))
                    + 4 * u64::from(out[0])
                    + 8 * u64::from(out[1])
            }
        });
        check(&format!("{kernel} AtomicFilter"), || {
            let atomic = AtomicFilter::from(filter.clone());
            move |round| {
                let mut out = [false; 2];
                atomic.contains_hash_batch(black_box(&[hash_of(round), round]), &mut out);
                atomic.insert_hash_batch(black_box(&[hash_of(round + 64)]));
                u64::from(atomic.contains_hash(hash_of(round)))
                    + 2 * u64::from(atomic.contains(&round))
                    + 4 * u64::from(atomic.insert(&(round + 1000)))
                    + 8 * u64::from(atomic.insert_hash(hash_of(round + 99)))
                    + 16 * u64::from(out[0])
                    + 32 * u64::from(out[1])
            }
        });
        check(&format!("{kernel} CountingFilter"), || {
            let mut counting = CountingFilter::with_num_blocks(4)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            move |round| {
                let inserted = counting.insert(&(round / 2));
                let removed = round % 3 == 0 && counting.remove(&(round / 2));
                u64::from(inserted)
                    + 2 * u64::from(removed)
                    + 4 * u64::from(counting.contains(&round))
                    + 8 * u64::from(counting.count_estimate(&(round / 2)))
                    + 64 * u64::from(counting.contains_hash(hash_of(round)))
            }
        });
    }
}

#[test]
fn scalable_operations_keep_caller_vector_registers() {
    for kernel in Kernel::available() {
        check(&format!("{kernel} ScalableFilter"), || {
            let mut scalable = ScalableFilter::with_fpr(8, 0.01)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            move |round| {
                let inserted = scalable.insert(&round).unwrap();
                scalable
                    .insert_hash_batch(black_box(&[hash_of(round)]))
                    .unwrap();
                let mut out = [false; 2];
                scalable.contains_hash_batch(black_box(&[hash_of(round / 2), round]), &mut out);
                u64::from(inserted)
                    + 2 * u64::from(scalable.contains(&(round / 2)))
                    + 4 * u64::from(scalable.contains(&(round + 7777)))
                    + 8 * u64::from(scalable.contains_hash(hash_of(round + 1)))
                    + 16 * u64::from(out[0])
                    + 32 * u64::from(out[1])
            }
        });
    }
}

#[test]
fn wide_operations_keep_caller_vector_registers() {
    for kernel in Kernel::available() {
        for probes in [1, 2] {
            let mut filter = WideFilter::with_num_blocks(128, probes)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            for round in (0..ROUNDS).step_by(2) {
                filter.insert(&round);
                filter.insert_hash(hash_of(round));
            }
            let bytes = filter.to_bytes();
            // The single-key lookups on their own, forced inline: the accumulators stay in
            // registers across them, where a missing clobber of the inline lookup shows.
            check(
                &format!("{kernel} WideFilter single-key lookups ({probes} probes)"),
                || WideLookups(filter.clone()),
            );
            check(
                &format!("{kernel} WideFilter ({probes} probes) lookups"),
                || {
                    let filter = filter.clone();
                    move |round| {
                        let mut out = [false; 2];
                        filter.contains_hash_batch(black_box(&[hash_of(round), round]), &mut out);
                        u64::from(filter.contains_hash(hash_of(round)))
                            + 2 * u64::from(filter.contains(&round))
                            + 4 * u64::from(out[0])
                            + 8 * u64::from(out[1])
                    }
                },
            );
            check(&format!("{kernel} WideFilterRef ({probes} probes)"), || {
                let bytes = bytes.clone();
                move |round| {
                    let view = WideFilterRef::from_bytes(&bytes)
                        .unwrap()
                        .with_kernel(kernel)
                        .unwrap();
                    u64::from(view.contains_hash(hash_of(round)))
                        + 2 * u64::from(view.contains(&round))
                }
            });
            check(
                &format!("{kernel} WideFilter ({probes} probes) inserts"),
                || {
                    let mut filter = filter.clone();
                    move |round| {
                        filter.insert_batch(black_box(&[round / 3, round / 5]));
                        filter.insert_hash_batch(black_box(&[hash_of(round / 4)]));
                        u64::from(filter.insert(&(round / 2)))
                            + 2 * u64::from(filter.insert_hash(hash_of(round + 64)))
                            + 4 * u64::from(filter.contains(&(round + 1)))
                    }
                },
            );
        }
    }
}

/// `WideFilter`'s single-key lookups, forced inline into the accumulating loop.
struct WideLookups(WideFilter);

impl Operation for WideLookups {
    #[inline(always)]
    fn run(&mut self, round: u64) -> u64 {
        u64::from(self.0.contains_hash(hash_of(round))) + 2 * u64::from(self.0.contains(&round))
    }
}

/// Every shape a window's single-key lookup has its own path for (one and two lines of 128- and
/// 256-bit planes), and one it does not (three generations: 48 bytes), as `(items per
/// generation, fpr, generations)`.
const WINDOW_SHAPES: [(usize, f64, usize); 5] = [
    (64, 0.01, 2),
    (64, 0.01, 4),
    (64, 0.001, 4),
    (64, 0.01, 8),
    (64, 0.01, 3),
];

#[test]
fn window_operations_keep_caller_vector_registers() {
    for kernel in Kernel::available() {
        for (items, fpr, generations) in WINDOW_SHAPES {
            let mut window = WindowFilter::with_fpr(items, fpr, generations)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            for round in (0..ROUNDS).step_by(2) {
                window.insert(&round);
                window.rotate();
                window.insert_hash(hash_of(round));
            }
            let shape = format!("G = {generations}, {}-bit planes", window.plane_bits());
            // The single-key lookups on their own, forced inline: the accumulators stay in
            // registers across them, where a missing clobber of the inline lookup shows.
            check(
                &format!("{kernel} WindowFilter single-key lookups ({shape})"),
                || WindowLookups(window.clone()),
            );
            check(&format!("{kernel} WindowFilter ({shape})"), || {
                let mut window = window.clone();
                move |round| {
                    let mut out = [false; 2];
                    window.contains_hash_batch(black_box(&[hash_of(round), round]), &mut out);
                    window.insert_batch(black_box(&[round / 3, round / 5]));
                    let inserted = window.insert(&(round / 2));
                    if round % 16 == 15 {
                        window.rotate();
                    }
                    u64::from(window.contains_hash(hash_of(round)))
                        + 2 * u64::from(window.contains(&round))
                        + 4 * u64::from(out[0])
                        + 8 * u64::from(out[1])
                        + 16 * u64::from(inserted)
                        + 32 * window.count_contained(&[round, round + 1]) as u64
                }
            });
        }
    }
}

/// The window's single-key assembly of each kernel and shape on its own (the hook has no
/// branch into a kernel's entry point, which would make the compiler keep the accumulators on
/// the stack around it): groups with planes that hold some keys and planes that hold every
/// bit, so the lookups answer both ways.
#[test]
fn window_assembly_keeps_caller_vector_registers() {
    use splitbloom::__kernel_testing::WindowProbe;
    // 64 groups of two lines: plane words with a third of their bits set, every fifth group
    // with all of them.
    let groups: Vec<[u32; 32]> = (0..64u64)
        .map(|group| {
            core::array::from_fn(|word| {
                if group % 5 == 0 {
                    u32::MAX
                } else {
                    let bits = hash_of(group * 32 + word as u64);
                    (bits as u32) & ((bits >> 32) as u32) & 0x5555_5555
                        | (bits as u32 & 0x0f0f_0f0f)
                }
            })
        })
        .collect();
    let mut probed = 0;
    for kernel in Kernel::available() {
        for (plane_bits, lines) in [(128, 1), (256, 1), (128, 2), (256, 2)] {
            let Some(probe) = WindowProbe::new(kernel, plane_bits, lines) else {
                continue;
            };
            probed += 1;
            let answers: Vec<bool> = (0..ROUNDS)
                .map(|round| probe.probe(hash_of(round) as u32, &groups[(round % 64) as usize]))
                .collect();
            assert!(answers.contains(&true) && answers.contains(&false));
            check(
                &format!("{kernel} window assembly, {plane_bits}-bit planes, {lines} line(s)"),
                || WindowAssembly(probe, groups.clone()),
            );
        }
    }
    if std::is_x86_feature_detected!("avx2") {
        assert!(probed >= 4, "the AVX2 assembly was not reached");
    }
}

/// One kernel's window assembly for one shape, forced inline into the accumulating loop.
struct WindowAssembly(splitbloom::__kernel_testing::WindowProbe, Vec<[u32; 32]>);

impl Operation for WindowAssembly {
    #[inline(always)]
    fn run(&mut self, round: u64) -> u64 {
        let group = &self.1[(round % 64) as usize];
        u64::from(self.0.probe(hash_of(round) as u32, group))
    }
}

/// `WindowFilter`'s single-key lookups, forced inline into the accumulating loop.
struct WindowLookups(WindowFilter);

impl Operation for WindowLookups {
    #[inline(always)]
    fn run(&mut self, round: u64) -> u64 {
        u64::from(self.0.contains_hash(hash_of(round))) + 2 * u64::from(self.0.contains(&round))
    }
}
