// Runs the libFuzzer target fuzz_session.cpp without libFuzzer (the gcc build): the typical batch and
// seeded mutations of it (bytes flipped, cut, repeated, sizes set to extremes), a bounded number of runs
// and seconds. Usage: burn-remote-fuzz-driver [RUNS [SECONDS]]; `--write-seed FILE` writes the seed
// (for a libFuzzer corpus) and exits.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "protocol_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<uint8_t> framed(const std::vector<std::vector<uint8_t>>& bodies) {
  std::vector<uint8_t> out;
  for (const auto& b : bodies) {
    const uint32_t n = static_cast<uint32_t>(b.size());
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&n), reinterpret_cast<const uint8_t*>(&n) + 4);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

void mutate(std::vector<uint8_t>& v, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !v.empty(); ++e) {
    const size_t at = rng() % v.size();
    switch (rng() % 6) {
      case 0: v[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
      case 1: v[at] = static_cast<uint8_t>(rng()); break;
      case 2: v.resize(at); break;
      case 3: {  // a 4- or 8-byte field set to an extreme
        const uint64_t extremes[] = {0, 1, 0xffffffffull, 0x7fffffffffffffffull, 0xffffffffffffffffull, 1ull << 31};
        const uint64_t x = extremes[rng() % 6];
        const size_t w = rng() % 2 ? 4 : 8;
        for (size_t i = 0; i < w && at + i < v.size(); ++i) v[at + i] = static_cast<uint8_t>(x >> (8 * i));
        break;
      }
      case 4: {  // the bytes before `at` repeated
        const std::vector<uint8_t> head(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at));
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), head.begin(), head.end());
        break;
      }
      default: v.erase(v.begin() + static_cast<std::ptrdiff_t>(at)); break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--write-seed") == 0) {
    const auto seed = framed({burn::remote::samples::typical()});
    std::FILE* f = std::fopen(argv[2], "wb");
    if (!f || std::fwrite(seed.data(), 1, seed.size(), f) != seed.size() || std::fclose(f) != 0) return 1;
    return 0;
  }
  const long runs = argc > 1 ? std::atol(argv[1]) : 20000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 60;
  const auto seed = framed({burn::remote::samples::typical(), burn::remote::samples::typical()});
  std::mt19937_64 rng(0x5eed);
  const auto start = std::chrono::steady_clock::now();
  long done = 0;
  LLVMFuzzerTestOneInput(seed.data(), seed.size());
  for (; done < runs; ++done) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) break;
    auto input = seed;
    mutate(input, rng);
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("burn-remote fuzz driver: %ld mutated inputs, no crash\n", done);
  return 0;
}
