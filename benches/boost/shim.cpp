// Boost.Bloom's split-block filter behind a C interface, so that `benches/workload.rs` runs it
// in the same process and the same rounds as splitbloom. Compiled by `benches/build.rs` against
// the Boost.Bloom headers beside this repository (`../shared/anchors/boost-bloom`, or
// `SPLITBLOOM_BOOST_DIR`); Boost.Bloom itself is not part of splitbloom.
//
// The filter is the one Boost.Bloom's own workload benchmark measures (its `bench.cpp`):
// `filter<std::uint64_t, 1, fast_multiblock32<8>>`, one 256-bit block per key with one bit in
// each of its eight 32-bit words. What is matched there:
//   * the hash: the filter's defaults, `boost::hash<std::uint64_t>` (the identity on 64-bit
//     targets, not marked avalanching) followed by the filter's own `mulx64` mixing step; the
//     static_assert below checks that the mixing step is taken;
//   * the size: the constructor gets a bit count (`blocks * 256` here, so every contender of the
//     workload has the same blocks) and Boost rounds it up to whole blocks;
//   * the loops: single-key lookups are `hits += may_contain(k)` and single-key builds
//     `insert(k)` one key at a time, both as loops compiled here, in C++, so that no call crosses
//     the language boundary per key; bulk operations are Boost's range overloads,
//     `insert(first, last)` over all keys and `may_contain(first, last, f)` over one chunk with
//     `f` writing each answer to a bool buffer.
//
// No C++ exception crosses into Rust: allocation failures come back as a null filter.

#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/filter.hpp>
#include <boost/container_hash/hash.hpp>
#include <boost/container_hash/hash_is_avalanching.hpp>

#include <cstddef>
#include <cstdint>
#include <new>

namespace {

using Filter = boost::bloom::filter<std::uint64_t, 1, boost::bloom::fast_multiblock32<8>>;

static_assert(!boost::hash_is_avalanching<boost::hash<std::uint64_t>>::value,
              "boost::hash<u64> must not be marked avalanching, so that the filter mixes it "
              "with mulx64 as in Boost.Bloom's own benchmark");

const Filter& as_filter(const void* filter) { return *static_cast<const Filter*>(filter); }
Filter& as_filter(void* filter) { return *static_cast<Filter*>(filter); }

}  // namespace

extern "C" {

// A filter of at least `bits` bits (whole 256-bit blocks), or null if it cannot be allocated.
void* splitbloom_boost_new(std::size_t bits) {
    try {
        return new Filter(bits);
    } catch (...) {
        return nullptr;
    }
}

void splitbloom_boost_free(void* filter) { delete static_cast<Filter*>(filter); }

// The filter's size in bits (a multiple of 256).
std::size_t splitbloom_boost_capacity_bits(const void* filter) {
    return as_filter(filter).capacity();
}

// The 64-bit hash the filter places `key` with: boost::hash, then the filter's mixing step.
std::uint64_t splitbloom_boost_hash(std::uint64_t key) {
    return boost::bloom::detail::mulx64(static_cast<std::uint64_t>(boost::hash<std::uint64_t>()(key)));
}

void splitbloom_boost_insert(void* filter, std::uint64_t key) { as_filter(filter).insert(key); }

bool splitbloom_boost_may_contain(const void* filter, std::uint64_t key) {
    return as_filter(filter).may_contain(key);
}

// Inserts `keys[0..count]` one at a time.
void splitbloom_boost_insert_each(void* filter, const std::uint64_t* keys, std::size_t count) {
    Filter& f = as_filter(filter);
    for (std::size_t i = 0; i < count; ++i) f.insert(keys[i]);
}

// How many of `keys[0..count]` the filter may contain, one key at a time, without a branch on
// the answers.
std::uint64_t splitbloom_boost_count_each(const void* filter, const std::uint64_t* keys,
                                          std::size_t count) {
    const Filter& f = as_filter(filter);
    std::uint64_t hits = 0;
    for (std::size_t i = 0; i < count; ++i) hits += f.may_contain(keys[i]);
    return hits;
}

// Boost's bulk insert over `keys[0..count]`.
void splitbloom_boost_insert_bulk(void* filter, const std::uint64_t* keys, std::size_t count) {
    as_filter(filter).insert(keys, keys + count);
}

// Boost's bulk lookup over `keys[0..count]`, the answer for `keys[i]` written to `out[i]`.
void splitbloom_boost_may_contain_bulk(const void* filter, const std::uint64_t* keys,
                                       std::size_t count, bool* out) {
    as_filter(filter).may_contain(keys, keys + count,
                                  [&out](const std::uint64_t&, bool answer) { *out++ = answer; });
}

}  // extern "C"
