// libFuzzer target over the server's decoder: one input is a client's batch bodies (after the
// handshake), each u32-length-prefixed, run through a Session on the cpu backend with small limits. Whatever
// the bytes, the session answers, refuses with a ProtocolError or reports a burn::Error; it never
// crashes, leaks or allocates beyond its limits. Built by burn-remote/fuzz with Clang; the gcc build
// runs it from remote_fuzz_driver.cpp for a bounded number of mutations (ctest label fuzz).
#include <cstdint>
#include <cstring>
#include <vector>

#include "session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const burn::BackendPtr backend = [] {
    burn::set_max_alloc_bytes(16u << 20);  // no single tensor past the session's own budget
    return burn::Device::get("cpu").backend();
  }();
  burn::remote::ServerLimits limits;
  limits.max_message_bytes = 1 << 20;
  limits.max_tensors = 256;
  limits.max_bytes = 16u << 20;
  burn::remote::Session session(backend, limits);
  burn::remote::Writer out;
  size_t pos = 0;
  while (pos + 4 <= size) {
    uint32_t n;
    std::memcpy(&n, data + pos, 4);
    pos += 4;
    if (n > size - pos) n = static_cast<uint32_t>(size - pos);
    try {
      session.handle(data + pos, n, out);
    } catch (const burn::remote::ProtocolError&) {
      return 0;  // the server closes this connection
    } catch (const burn::Error&) {
      return 0;
    }
    pos += n;
    out.clear();
  }
  return 0;
}
