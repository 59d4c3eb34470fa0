// The random numbers of burn::data, fixed so that a seed means the same order on every platform and
// standard library (std::uniform_int_distribution and std::shuffle are not specified bit for bit).
//
//   generator     std::mt19937_64 (its output sequence is fixed by the C++ standard)
//   below(n)      rejection sampling: draw r until r >= (2^64 - n) % n, return r % n (unbiased)
//   permutation   Fisher-Yates from the back: for i = n-1 .. 1, swap(p[i], p[below(i + 1)]), p = 0..n-1
//   epoch seeds   epoch e of a loader seeded s shuffles with permutation(n, derive_seed(s, e)),
//                 derive_seed(s, e) = splitmix64(splitmix64(s) ^ e)
// A loader's position is therefore (seed, epoch, batches consumed): nothing else needs saving.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "burn/data/export.hpp"

namespace burn::data {

using Rng = std::mt19937_64;

// One step of SplitMix64 (Steele et al.): a bijective 64-bit mix, used to derive seeds.
BURN_DATA_API uint64_t splitmix64(uint64_t x);
// The seed of stream `stream` (an epoch) of a generator seeded `seed`.
BURN_DATA_API uint64_t derive_seed(uint64_t seed, uint64_t stream);
// A uniform integer in [0, n), n > 0, as described above.
BURN_DATA_API uint64_t uniform_below(Rng& rng, uint64_t n);
// The permutation of 0..n-1 drawn by Fisher-Yates from a generator seeded `seed`.
BURN_DATA_API std::vector<size_t> permutation(size_t n, uint64_t seed);
// The same, drawing from `rng` (several permutations from one stream).
BURN_DATA_API std::vector<size_t> permutation(size_t n, Rng& rng);

}  // namespace burn::data
