//! XXH3-64's long-input loop (inputs of more than 240 bytes) in the widest SIMD this CPU has,
//! chosen at run time.
//!
//! xxhash-rust picks its accumulate loop with `cfg(target_feature)` when it is compiled: SSE2
//! in a default x86_64 build, AVX2 or AVX-512 only under `-C target-cpu=native` or the like, so
//! a dependent crate built with default flags would hash long keys at SSE2 speed on a CPU with
//! wider vectors (`BENCHMARKS.md`, "Hashing"). This module computes the same function, the
//! long-input hash of the XXH3 specification (xxHash's `doc/xxhash_spec.md`, "XXH3 algorithm
//! description", "Long inputs"), with AVX-512F or AVX2 once they are detected; where neither
//! is, [`hash_long`] returns `None` and the callers keep xxhash-rust's own loop. It is `unsafe`
//! code behind run-time CPU detection, like the kernels, allowed in this one file of the
//! hashing module; the hashers call only the safe [`hash_long`].
//!
//! The algorithm, for an input of `len > 240` bytes and a 192-byte secret: eight 64-bit
//! accumulators start at [`INITIAL_ACCUMULATORS`]. The input is read in 64-byte stripes, 16
//! to a 1024-byte block; stripe `s` of a block is *accumulated* with the secret at byte `8s`
//! (per 64-bit lane `i`: `k = data[i] ^ secret[i]`, `acc[i ^ 1] += data[i]`, `acc[i] +=
//! (k mod 2^32) * (k >> 32)`), and each whole block ends with a *scramble* with the secret's
//! last 64 bytes (`acc[i] = (acc[i] ^ (acc[i] >> 47) ^ secret[i]) * PRIME32_1`). The stripes
//! of the last, partial block follow, then the input's last 64 bytes as one more stripe with
//! the secret at byte 121. The result merges the accumulators pairwise with the secret at byte
//! 11 (see [`merge`]). Blocks and stripes are counted over `len - 1` bytes, and the last
//! stripe is always the input's last 64 bytes, overlapping the stripe before it unless `len`
//! is a multiple of 64, as the specification has it.
//!
//! Bit-exactness with xxhash-rust is checked at every length from 241 to 4,200 bytes and
//! around block boundaries up to 20 KiB, with the default secret and derived ones, on every
//! path this CPU has (unit tests below), and by the `hashing` fuzz target through the
//! default hasher's byte contract.

// Where xxhash-rust's loop is as wide (other architectures: NEON on aarch64; x86_64 builds
// with AVX-512F enabled at compile time) `hash_long` is always `None`, and the SIMD loops and
// their shared pieces are unused (the tests still run them).
#![cfg_attr(
    not(all(target_arch = "x86_64", not(target_feature = "avx512f"))),
    allow(
        dead_code,
        reason = "the SIMD loops are used only where xxhash-rust was compiled narrower"
    )
)]

/// The size of the secrets used here: XXH3's default secret size.
pub(crate) const SECRET_SIZE: usize = 192;

/// Inputs longer than this take the long-input algorithm.
pub(crate) const MID_SIZE_MAX: usize = 240;

const STRIPE: usize = 64;
/// Secret bytes consumed per stripe.
const SECRET_CONSUME_RATE: usize = 8;
const STRIPES_PER_BLOCK: usize = (SECRET_SIZE - STRIPE) / SECRET_CONSUME_RATE;
const BLOCK: usize = STRIPE * STRIPES_PER_BLOCK;
/// Where the secret of the input's last stripe starts.
const SECRET_LAST_ACCUMULATE_START: usize = 7;
/// Where the secret of the final merge starts.
const SECRET_MERGE_START: usize = 11;

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// The accumulators' starting values (the specification's `INIT_ACC`).
const INITIAL_ACCUMULATORS: [u64; 8] = [
    PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
];

/// XXH3's hash of `input` (more than [`MID_SIZE_MAX`] bytes) with `secret`, in AVX-512F or
/// AVX2 when this CPU has one of them and xxhash-rust was not compiled for it already; `None`
/// otherwise, where xxhash-rust's own loop is as wide as this one would be (a `-C
/// target-cpu=native` build, and aarch64, whose xxhash-rust loop is NEON).
#[inline(always)]
pub(crate) fn hash_long(input: &[u8], secret: &[u8; SECRET_SIZE]) -> Option<u64> {
    if input.len() <= MID_SIZE_MAX {
        return None;
    }
    // xxhash-rust's choice, made when it was compiled: AVX-512F, else AVX2, else SSE2.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    {
        if x86::avx512_available() {
            // SAFETY: AVX-512F was just detected.
            return Some(unsafe { x86::hash_long_avx512(input, secret) });
        }
        #[cfg(not(target_feature = "avx2"))]
        if x86::avx2_available() {
            // SAFETY: AVX2 was just detected.
            return Some(unsafe { x86::hash_long_avx2(input, secret) });
        }
    }
    // Where xxhash-rust's loop is kept, the secret is the caller's to pass on.
    let _ = secret;
    None
}

/// The final merge of the accumulators, with `secret[SECRET_MERGE_START..]`.
#[inline]
fn merge(accumulators: &[u64; 8], secret: &[u8; SECRET_SIZE], len: usize) -> u64 {
    let word = |at: usize| {
        let bytes: [u8; 8] = secret[at..at + 8].try_into().unwrap_or_default();
        u64::from_le_bytes(bytes)
    };
    let mut result = (len as u64).wrapping_mul(PRIME64_1);
    for pair in 0..4 {
        let at = SECRET_MERGE_START + 16 * pair;
        let product = u128::from(accumulators[2 * pair] ^ word(at))
            * u128::from(accumulators[2 * pair + 1] ^ word(at + 8));
        result = result.wrapping_add((product as u64) ^ ((product >> 64) as u64));
    }
    // XXH3's avalanche.
    result ^= result >> 37;
    result = result.wrapping_mul(0x1656_6791_9E37_79F9);
    result ^ (result >> 32)
}

/// The stripes of `input` (more than [`MID_SIZE_MAX`] bytes) in the order the algorithm reads
/// them, each with the offset of its secret: `accumulate(acc, stripe, secret_offset)`, with
/// `scramble(acc)` after each whole block. Written once for both widths; every stripe is 64
/// bytes of `input` and every secret offset leaves 64 bytes of the secret.
#[inline(always)]
fn for_each_stripe<A>(
    input: &[u8],
    acc: &mut A,
    accumulate: impl Fn(&mut A, &[u8; STRIPE], usize),
    scramble: impl Fn(&mut A),
) {
    let len = input.len();
    fn stripe(bytes: &[u8]) -> &[u8; STRIPE] {
        bytes
            .try_into()
            .unwrap_or_else(|_| unreachable!("64 bytes"))
    }
    let blocks = (len - 1) / BLOCK;
    let (whole, rest) = input.split_at(blocks * BLOCK);
    for block in whole.chunks_exact(BLOCK) {
        for (index, bytes) in block.chunks_exact(STRIPE).enumerate() {
            accumulate(acc, stripe(bytes), index * SECRET_CONSUME_RATE);
        }
        scramble(acc);
    }
    // The last block's stripes that end before the input's last byte (counted over `len - 1`
    // bytes); the last 64 bytes follow as the final stripe.
    let last_stripes = (rest.len() - 1) / STRIPE;
    for (index, bytes) in rest[..last_stripes * STRIPE]
        .chunks_exact(STRIPE)
        .enumerate()
    {
        accumulate(acc, stripe(bytes), index * SECRET_CONSUME_RATE);
    }
    accumulate(
        acc,
        stripe(&input[len - STRIPE..]),
        SECRET_SIZE - STRIPE - SECRET_LAST_ACCUMULATE_START,
    );
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::{
        __m256i, __m512i, _mm256_add_epi64, _mm256_loadu_si256, _mm256_mul_epu32,
        _mm256_set1_epi64x, _mm256_shuffle_epi32, _mm256_slli_epi64, _mm256_srli_epi64,
        _mm256_storeu_si256, _mm256_xor_si256, _mm512_add_epi64, _mm512_loadu_si512,
        _mm512_mul_epu32, _mm512_set1_epi64, _mm512_shuffle_epi32, _mm512_slli_epi64,
        _mm512_srli_epi64, _mm512_storeu_si512, _mm512_xor_si512,
    };

    use super::{INITIAL_ACCUMULATORS, PRIME32_1, SECRET_SIZE, STRIPE, for_each_stripe, merge};

    /// `_MM_SHUFFLE(0, 3, 0, 1)` on 32-bit words: each 64-bit lane's high half moved low.
    const HIGH_TO_LOW: i32 = 0b00_11_00_01;
    /// `_MM_SHUFFLE(1, 0, 3, 2)`: the two 64-bit lanes of each 128-bit pair swapped.
    const SWAP_LANES: i32 = 0b01_00_11_10;

    /// Whether AVX-512F can run here.
    #[inline]
    pub(super) fn avx512_available() -> bool {
        #[cfg(feature = "std")]
        return std::is_x86_feature_detected!("avx512f");
        #[cfg(not(feature = "std"))]
        return cfg!(target_feature = "avx512f");
    }

    /// Whether AVX2 can run here.
    #[inline]
    #[cfg_attr(
        target_feature = "avx2",
        allow(dead_code, reason = "xxhash-rust's loop is AVX2 already in this build")
    )]
    pub(super) fn avx2_available() -> bool {
        #[cfg(feature = "std")]
        return std::is_x86_feature_detected!("avx2");
        #[cfg(not(feature = "std"))]
        return cfg!(target_feature = "avx2");
    }

    /// [`hash_long`](super::hash_long) with one 512-bit register of accumulators.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn hash_long_avx512(input: &[u8], secret: &[u8; SECRET_SIZE]) -> u64 {
        let load = |bytes: &[u8]| {
            debug_assert!(bytes.len() >= STRIPE);
            // SAFETY: `bytes` has at least 64 readable bytes (every caller below passes a
            // 64-byte stripe or the secret from an offset that leaves 64 bytes); the load
            // needs no alignment.
            unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
        };
        // SAFETY: the array has 64 readable bytes; the load needs no alignment.
        let mut acc: __m512i = unsafe { _mm512_loadu_si512(INITIAL_ACCUMULATORS.as_ptr().cast()) };
        let prime = _mm512_set1_epi64(PRIME32_1 as i64);
        for_each_stripe(
            input,
            &mut acc,
            |acc, stripe, at| {
                let data = load(stripe);
                let keyed = _mm512_xor_si512(data, load(&secret[at..]));
                let product = _mm512_mul_epu32(keyed, _mm512_shuffle_epi32::<HIGH_TO_LOW>(keyed));
                let swapped = _mm512_shuffle_epi32::<SWAP_LANES>(data);
                *acc = _mm512_add_epi64(product, _mm512_add_epi64(*acc, swapped));
            },
            |acc| {
                let mixed = _mm512_xor_si512(*acc, _mm512_srli_epi64::<47>(*acc));
                let keyed = _mm512_xor_si512(mixed, load(&secret[SECRET_SIZE - STRIPE..]));
                let low = _mm512_mul_epu32(keyed, prime);
                let high = _mm512_mul_epu32(_mm512_shuffle_epi32::<HIGH_TO_LOW>(keyed), prime);
                *acc = _mm512_add_epi64(low, _mm512_slli_epi64::<32>(high));
            },
        );
        let mut accumulators = [0u64; 8];
        // SAFETY: the array has 64 writable bytes; the store needs no alignment.
        unsafe { _mm512_storeu_si512(accumulators.as_mut_ptr().cast(), acc) };
        merge(&accumulators, secret, input.len())
    }

    /// [`hash_long`](super::hash_long) with two 256-bit registers of accumulators.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[cfg_attr(
        target_feature = "avx2",
        allow(dead_code, reason = "xxhash-rust's loop is AVX2 already in this build")
    )]
    pub(super) unsafe fn hash_long_avx2(input: &[u8], secret: &[u8; SECRET_SIZE]) -> u64 {
        let load = |bytes: &[u8]| {
            debug_assert!(bytes.len() >= 32);
            // SAFETY: `bytes` has at least 32 readable bytes (the halves of a 64-byte stripe,
            // or the secret from an offset that leaves 64 bytes); the load needs no alignment.
            unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
        };
        let mut acc: [__m256i; 2] = [
            load(bytemuck::cast_slice(&INITIAL_ACCUMULATORS[..4])),
            load(bytemuck::cast_slice(&INITIAL_ACCUMULATORS[4..])),
        ];
        let prime = _mm256_set1_epi64x(PRIME32_1 as i64);
        for_each_stripe(
            input,
            &mut acc,
            |acc, stripe, at| {
                for (half, acc) in acc.iter_mut().enumerate() {
                    let data = load(&stripe[32 * half..]);
                    let keyed = _mm256_xor_si256(data, load(&secret[at + 32 * half..]));
                    let product =
                        _mm256_mul_epu32(keyed, _mm256_shuffle_epi32::<HIGH_TO_LOW>(keyed));
                    let swapped = _mm256_shuffle_epi32::<SWAP_LANES>(data);
                    *acc = _mm256_add_epi64(product, _mm256_add_epi64(*acc, swapped));
                }
            },
            |acc| {
                for (half, acc) in acc.iter_mut().enumerate() {
                    let mixed = _mm256_xor_si256(*acc, _mm256_srli_epi64::<47>(*acc));
                    let key = load(&secret[SECRET_SIZE - STRIPE + 32 * half..]);
                    let keyed = _mm256_xor_si256(mixed, key);
                    let low = _mm256_mul_epu32(keyed, prime);
                    let high = _mm256_mul_epu32(_mm256_shuffle_epi32::<HIGH_TO_LOW>(keyed), prime);
                    *acc = _mm256_add_epi64(low, _mm256_slli_epi64::<32>(high));
                }
            },
        );
        let mut accumulators = [0u64; 8];
        for (half, acc) in acc.iter().enumerate() {
            let out: &mut [u64] = &mut accumulators[4 * half..4 * half + 4];
            // SAFETY: `out` has 32 writable bytes; the store needs no alignment.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), *acc) };
        }
        merge(&accumulators, secret, input.len())
    }

    /// Every path this CPU can run, by name, for the tests.
    #[cfg(test)]
    pub(super) fn paths() -> std::vec::Vec<(&'static str, super::LongHash)> {
        let mut paths: std::vec::Vec<(&'static str, super::LongHash)> = std::vec::Vec::new();
        if avx512_available() {
            // SAFETY: AVX-512F was just detected.
            paths.push(("avx512", |input, secret| unsafe {
                hash_long_avx512(input, secret)
            }));
        }
        if avx2_available() {
            // SAFETY: AVX2 was just detected.
            paths.push(("avx2", |input, secret| unsafe {
                hash_long_avx2(input, secret)
            }));
        }
        paths
    }
}

/// A long-input hash of one path (tests).
#[cfg(test)]
type LongHash = fn(&[u8], &[u8; SECRET_SIZE]) -> u64;

#[cfg(test)]
mod tests {
    use super::*;

    /// The secrets every test hashes with: the default (seed 0) and three derived from seeds,
    /// as XXH3 derives them.
    fn secrets() -> std::vec::Vec<(u64, [u8; SECRET_SIZE])> {
        [0, 1, 0x243f_6a88_85a3_08d3, u64::MAX]
            .into_iter()
            .map(|seed| {
                (
                    seed,
                    xxhash_rust::const_xxh3::const_custom_default_secret(seed),
                )
            })
            .collect()
    }

    fn input(len: usize) -> std::vec::Vec<u8> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ len as u64;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 56) as u8
            })
            .collect()
    }

    /// Every SIMD path against xxhash-rust (seeded and with the secret) at every length from
    /// 241 to 4,200 bytes, and around the block boundaries (multiples of 1024, plus or minus
    /// 1, 63, 64 and 65) up to 20 KiB.
    #[test]
    fn every_path_equals_xxhash_rust() {
        #[cfg(target_arch = "x86_64")]
        let paths = x86::paths();
        #[cfg(not(target_arch = "x86_64"))]
        let paths: std::vec::Vec<(&str, LongHash)> = std::vec::Vec::new();
        let mut lengths: std::vec::Vec<usize> = (MID_SIZE_MAX + 1..=4200).collect();
        for block in 4..=20 {
            for delta in [-65isize, -64, -63, -1, 0, 1, 63, 64, 65] {
                lengths.push((block * BLOCK).checked_add_signed(delta).unwrap());
            }
        }
        for (seed, secret) in secrets() {
            for &len in &lengths {
                let bytes = input(len);
                let expected = xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, seed);
                assert_eq!(
                    xxhash_rust::xxh3::xxh3_64_with_secret(&bytes, &secret),
                    expected
                );
                for (name, path) in &paths {
                    assert_eq!(
                        path(&bytes, &secret),
                        expected,
                        "{name}, length {len}, seed {seed:#x}"
                    );
                }
                if let Some(hash) = hash_long(&bytes, &secret) {
                    assert_eq!(hash, expected, "hash_long, length {len}, seed {seed:#x}");
                }
            }
        }
        std::println!(
            "paths checked: {:?}",
            paths
                .iter()
                .map(|(name, _)| *name)
                .collect::<std::vec::Vec<_>>()
        );
    }

    /// Inputs of up to 240 bytes are not this module's: `None`, whatever the CPU.
    #[test]
    fn short_inputs_are_left_to_the_callers() {
        let secret = xxhash_rust::const_xxh3::const_custom_default_secret(0);
        for len in [0, 1, 64, 128, 240] {
            assert_eq!(hash_long(&input(len), &secret), None, "length {len}");
        }
    }
}
