// Boost.Bloom's multiblock filters on the workload of benches/wide.rs, for WideFilter's
// comparison in BENCHMARKS.md ("WideFilter for low targets"). Run by benches/wide-vs-boost.sh,
// which compiles it against the Boost.Bloom headers it is given (not part of this repository)
// and runs it back to back with the Rust benchmark.
//
// The same keys as benches/wide.rs (SplitMix64 streams: 10^6 inserted keys from seed 1, 10^7
// absent keys from seed 2, 10^6 queries from seed 3 with every other one an inserted key,
// rotated by one), the same targets (1e-3, 1e-4, 1e-6) and the same measures: bytes against
// the classic optimum n·ln(1/p)/ln²2 bits, the false-positive rate over the absent keys, and
// the median over rounds of ns per key for one-at-a-time lookups (`hits += may_contain(k)`)
// and bulk lookups (`may_contain(first, last, f)` over chunks of 1024 keys). Each filter is
// sized by Boost's own `capacity_for(n, p)`. Keys go through boost::hash<uint64_t> and the
// filter's mixing (Boost's default), where the Rust side hashes with XXH3.

#include <boost/bloom/fast_multiblock64.hpp>
#include <boost/bloom/filter.hpp>
#include <boost/bloom/multiblock.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static std::vector<std::uint64_t> keys(std::uint64_t seed, std::size_t count) {
    std::vector<std::uint64_t> out(count);
    std::uint64_t state = seed;
    for (auto& key : out) {
        state += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        key = z ^ (z >> 31);
    }
    return out;
}

static double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <class F>
__attribute__((noinline)) static std::uint64_t single(const F& f, const std::vector<std::uint64_t>& q) {
    std::uint64_t hits = 0;
    for (auto key : q) hits += f.may_contain(key);
    return hits;
}

template <class F>
__attribute__((noinline)) static std::uint64_t bulk(const F& f, const std::vector<std::uint64_t>& q) {
    static bool out[1024];
    std::uint64_t hits = 0;
    for (std::size_t start = 0; start < q.size(); start += 1024) {
        std::size_t len = std::min<std::size_t>(1024, q.size() - start);
        bool* o = out;
        f.may_contain(q.data() + start, q.data() + start + len,
                      [&o](const std::uint64_t&, bool r) { *o++ = r; });
        for (std::size_t i = 0; i < len; ++i) hits += out[i];
    }
    return hits;
}

template <class F, class Run>
static double ns_per_key(const F& f, const std::vector<std::uint64_t>& q, Run run) {
    auto start = std::chrono::steady_clock::now();
    volatile std::uint64_t sink = run(f, q);
    (void)sink;
    auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
    return ns.count() / q.size();
}

template <class Sub>
static void row(const char* name, double fpr, const std::vector<std::uint64_t>& inserted,
                const std::vector<std::uint64_t>& absent, const std::vector<std::uint64_t>& queries,
                int rounds) {
    using Filter = boost::bloom::filter<std::uint64_t, 1, Sub>;
    std::size_t n = inserted.size();
    Filter f(Filter::capacity_for(n, fpr));
    f.insert(inserted.begin(), inserted.end());
    for (auto key : inserted) {
        if (!f.may_contain(key)) {
            std::fprintf(stderr, "%s: an inserted key is missing\n", name);
            std::exit(1);
        }
    }
    std::uint64_t fp = 0;
    for (auto key : absent) fp += f.may_contain(key);
    double bytes = f.capacity() / 8.0;
    double optimum = n * std::log(1.0 / fpr) / (std::log(2.0) * std::log(2.0)) / 8.0;
    std::vector<double> s, b;
    for (int round = 0; round < rounds; ++round) {
        s.push_back(ns_per_key(f, queries, single<Filter>));
        b.push_back(ns_per_key(f, queries, bulk<Filter>));
    }
    std::printf("| %g | %s | %.0f (%.3fx) | %.3e | %.2f | %.2f |\n", fpr, name, bytes,
                bytes / optimum, double(fp) / absent.size(), median(s), median(b));
}

int main() {
    const char* env = std::getenv("SPLITBLOOM_WIDE_ROUNDS");
    int rounds = env ? std::atoi(env) : 15;
    if (rounds < 1) rounds = 1;
    std::size_t items = 1000000;
    auto inserted = keys(1, items);
    auto absent = keys(2, 10000000);
    auto queries = keys(3, 1000000);
    for (std::size_t i = 0; i < queries.size(); i += 2) queries[i] = inserted[queries[i] % items];
    std::rotate(queries.begin(), queries.begin() + 1, queries.end());
    std::printf("Boost.Bloom, %zu keys, %d rounds, medians (ns per key)\n", items, rounds);
    std::printf("| p | filter | bytes (x opt) | FPR | single ns | bulk ns |\n|---|---|---|---|---|---|\n");
    for (double fpr : {1e-3, 1e-4, 1e-6}) {
        row<boost::bloom::fast_multiblock64<8>>("fast_multiblock64<8>", fpr, inserted, absent, queries, rounds);
        row<boost::bloom::fast_multiblock64<16>>("fast_multiblock64<16>", fpr, inserted, absent, queries, rounds);
        row<boost::bloom::multiblock<std::uint64_t, 16>>("multiblock<u64, 16>", fpr, inserted, absent, queries, rounds);
    }
}
