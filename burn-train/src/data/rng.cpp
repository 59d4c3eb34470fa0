// The generators of rng.hpp: fixed algorithms so that a seed gives the same order everywhere.
#include "burn/data/rng.hpp"

#include <numeric>
#include <utility>

namespace burn::data {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) { return splitmix64(splitmix64(seed) ^ stream); }

uint64_t uniform_below(Rng& rng, uint64_t n) {
  // 2^64 mod n: the values below it are the incomplete last cycle of r % n and are redrawn.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    uint64_t r = rng();
    if (r >= threshold) return r % n;
  }
}

std::vector<size_t> permutation(size_t n, Rng& rng) {
  std::vector<size_t> p(n);
  std::iota(p.begin(), p.end(), size_t{0});
  for (size_t i = n; i > 1; --i) std::swap(p[i - 1], p[uniform_below(rng, i)]);
  return p;
}

std::vector<size_t> permutation(size_t n, uint64_t seed) {
  Rng rng(seed);
  return permutation(n, rng);
}

}  // namespace burn::data
