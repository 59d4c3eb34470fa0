// The server's decoder against valid, malformed and hostile batches: every bad size, count, id or
// shape is refused before anything is allocated for it, with a message naming it; an op that fails
// on the backend is an error reply, not a closed connection.
#include <gtest/gtest.h>

#include "protocol_samples.hpp"
#include "session.hpp"

namespace burn::remote {
namespace {

using samples::batch;

BackendPtr cpu() { return Device::get("cpu").backend(); }

struct Replies {
  std::vector<uint8_t> bytes;
  // The replies' frames in order: status and the reader of the rest.
  std::vector<std::pair<uint8_t, std::vector<uint8_t>>> frames() const {
    std::vector<std::pair<uint8_t, std::vector<uint8_t>>> out;
    Reader r(bytes.data(), bytes.size());
    while (!r.done()) {
      const uint32_t n = r.u32();
      Reader f(r.take(n, "frame"), n);
      EXPECT_EQ(f.u8(), static_cast<uint8_t>(Frame::Reply));
      f.u64();
      const uint8_t status = f.u8();
      const uint8_t* rest = f.take(f.left(), "rest");
      out.emplace_back(status, std::vector<uint8_t>(rest, rest + (n - 10)));
    }
    return out;
  }
};

Replies run(Session& s, const std::vector<uint8_t>& body) {
  Writer out;
  s.handle(body.data(), body.size(), out);
  return Replies{out.bytes()};
}

std::string refusal(const std::vector<uint8_t>& body, ServerLimits limits = {}) {
  Session s(cpu(), limits);
  try {
    run(s, body);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RemoteProtocol, TypicalBatchComputesAndAnswers) {
  Session s(cpu(), {});
  const auto frames = run(s, samples::typical()).frames();
  ASSERT_EQ(frames.size(), 3u);  // matmul's metas, the read, the sync
  Reader meta(frames[0].second.data(), frames[0].second.size());
  EXPECT_EQ(meta.u32(), 1u);
  EXPECT_EQ(get_meta(meta), (Meta{true, Shape{2, 2}, DType::F32}));
  Reader data(frames[1].second.data(), frames[1].second.size());
  EXPECT_EQ(get_data(data, SIZE_MAX).to_vec<float>(), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(frames[2].first, 0);
  EXPECT_EQ(s.tensors(), 3u);  // a, b, a@b (a+a was freed)
  EXPECT_EQ(s.bytes_in_use(), (6 + 6 + 4) * 4u);
}

TEST(RemoteProtocol, HelloChecksMagicVersionAndToken) {
  auto hello = [](uint64_t version, const std::string& token, bool magic = true) {
    Writer w;
    w.u8(static_cast<uint8_t>(Frame::Hello));
    w.raw(magic ? "burn-rmt" : "http/1.1", 8);
    w.u64(version);
    w.str(token);
    return w.bytes();
  };
  EXPECT_FALSE(Session::check_hello(hello(kProtocolVersion, ""), ""));
  EXPECT_FALSE(Session::check_hello(hello(kProtocolVersion, "s3cret"), "s3cret"));
  EXPECT_NE(Session::check_hello(hello(kProtocolVersion, "s3cre"), "s3cret")->find("authentication failed"),
            std::string::npos);
  EXPECT_NE(Session::check_hello(hello(kProtocolVersion, "s3cretX"), "s3cret")->find("authentication failed"),
            std::string::npos);
  const auto other = Session::check_hello(hello(kProtocolVersion + 1, ""), "");
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("different builds of burn"), std::string::npos) << *other;
  EXPECT_NE(Session::check_hello(hello(kProtocolVersion, "", false), "")->find("bad magic"), std::string::npos);
}

TEST(RemoteProtocol, VersionIsTheOpTableHash) {
  EXPECT_EQ(kProtocolVersion, detail::fnv1a("burn-remote-layout", kOpTableHash) ^ kLayoutVersion);
}

TEST(RemoteProtocol, RefusesUnknownOpIdsAndRecordKinds) {
  EXPECT_NE(refusal(batch([](Writer& w) {
              samples::binary(w, OpId::add, 1, 0, 0, 0);
              const size_t id = w.size() - 8 - 8 - 4 - 8 - 8 - 2;  // the op id's two bytes
              w.bytes()[id] = w.bytes()[id + 1] = 0xff;
              return 1u;
            })).find("unknown op id"),
            std::string::npos);
  EXPECT_NE(refusal(batch([](Writer& w) {
              w.u8(99);
              w.u32(0);
              return 1u;
            })).find("unknown record kind 99"),
            std::string::npos);
}

TEST(RemoteProtocol, RefusesCountsBeyondTheBytesLeft) {
  // A record count of 2^32 - 1 in a batch of a few bytes.
  EXPECT_NE(refusal(batch([](Writer&) { return 0xffffffffu; })).find("cannot fit"), std::string::npos);
  // A record whose length runs past the batch.
  EXPECT_NE(refusal(batch([](Writer& w) {
              w.u8(static_cast<uint8_t>(Record::Sync));
              w.u32(1000);
              return 1u;
            })).find("truncated"),
            std::string::npos);
}

TEST(RemoteProtocol, RefusesShapesOfAbsurdRankOrSize) {
  auto from_data_with = [](std::vector<int64_t> dims, uint64_t bytes) {
    return batch([=](Writer& w) {
      const size_t rec = begin_record(w, Record::Op);
      w.u16(static_cast<uint16_t>(OpId::from_data));
      w.u64(1);
      w.u64(0);
      w.u32(0);
      put(w, DType::F32);
      w.u32(static_cast<uint32_t>(dims.size()));
      for (int64_t d : dims) w.i64(d);
      w.u64(bytes);
      end_record(w, rec);
      return 1u;
    });
  };
  EXPECT_NE(refusal(from_data_with(std::vector<int64_t>(17, 1), 4)).find("at most 16"), std::string::npos);
  EXPECT_NE(refusal(from_data_with({1ll << 40, 1ll << 40}, 0)).find("more elements than int64"), std::string::npos);
  EXPECT_NE(refusal(from_data_with({-2, 3}, 0)).find("negative dim"), std::string::npos);
  EXPECT_NE(refusal(from_data_with({1 << 20, 1 << 10}, 1ull << 32)).find("tensor data needs 4294967296 bytes"),
            std::string::npos);
  EXPECT_NE(refusal(from_data_with({2, 3}, 20)).find("has 20 bytes, expected 24"), std::string::npos);
}

TEST(RemoteProtocol, RefusesUnknownHandlesAndReusedOutputs) {
  EXPECT_NE(refusal(batch([](Writer& w) {
              samples::binary(w, OpId::add, 5, 0, 1, 2);
              return 1u;
            })).find("unknown handle 1"),
            std::string::npos);
  EXPECT_NE(refusal(batch([](Writer& w) {
              samples::free_handle(w, 42);
              return 1u;
            })).find("free of unknown handle 42"),
            std::string::npos);
  EXPECT_NE(refusal(batch([](Writer& w) {
              const auto a = TensorData::from_vector<float>({1}, Shape{1});
              samples::from_data(w, 3, 0, a);
              samples::from_data(w, 3, 0, a);
              return 2u;
            })).find("reuses a handle"),
            std::string::npos);
  EXPECT_NE(refusal(batch([](Writer& w) {
              samples::read(w, 1, 9);
              return 1u;
            })).find("read of unknown handle 9"),
            std::string::npos);
}

TEST(RemoteProtocol, BackendErrorsAreRepliesWithTheirClass) {
  Session s(cpu(), {});
  const auto frames = run(s, batch([](Writer& w) {
                            samples::from_data(w, 1, 0, TensorData::from_vector<float>({1, 2, 3}, Shape{3}));
                            samples::from_data(w, 2, 0, TensorData::from_vector<float>({1, 2}, Shape{2}));
                            samples::binary(w, OpId::add, 3, 0, 1, 2);  // fire and forget: fails on the server
                            samples::binary(w, OpId::mul, 4, 0, 3, 3);  // over a failed output: fails the same way
                            samples::sync(w, 5);
                            samples::sync(w, 6);
                            samples::read(w, 7, 4);
                            return 7u;
                          }))
                          .frames();
  ASSERT_EQ(frames.size(), 3u);
  for (int i : {0, 2}) {
    EXPECT_EQ(frames[i].first, 1);
    Reader r(frames[i].second.data(), frames[i].second.size());
    const WireError e = get_error(r);
    EXPECT_THROW(rethrow(e), ShapeError);
    EXPECT_EQ(e.op, "add");
  }
  EXPECT_EQ(frames[1].first, 0) << "a sync reports an error once; the failed tensor keeps reporting it";
}

TEST(RemoteProtocol, MemoryAndTensorLimitsFailTheOpNotTheConnection) {
  ServerLimits limits;
  limits.max_bytes = 64;
  limits.max_tensors = 2;
  Session s(cpu(), limits);
  const auto frames = run(s, batch([](Writer& w) {
                            samples::from_data(w, 1, 2, TensorData(Shape{100}, DType::F32));  // 400 bytes
                            samples::from_data(w, 3, 0, TensorData(Shape{4}, DType::F32));
                            samples::from_data(w, 4, 0, TensorData(Shape{4}, DType::F32));
                            samples::from_data(w, 5, 6, TensorData(Shape{1}, DType::F32));  // a third tensor
                            return 4u;
                          }))
                          .frames();
  ASSERT_EQ(frames.size(), 2u);
  for (const auto& f : frames) {
    EXPECT_EQ(f.first, 1);
    Reader r(f.second.data(), f.second.size());
    EXPECT_THROW(rethrow(get_error(r)), OutOfMemory);
  }
}

TEST(RemoteProtocol, IntoDataIsNotAnOp) {
  EXPECT_NE(refusal(batch([](Writer& w) {
              const size_t rec = begin_record(w, Record::Op);
              w.u16(static_cast<uint16_t>(OpId::into_data));
              w.u64(1);
              w.u64(0);
              w.u32(0);
              w.u64(1);
              end_record(w, rec);
              return 1u;
            })).find("into_data is a read"),
            std::string::npos);
}

TEST(RemoteProtocol, EveryTruncationOfAValidBatchIsRefusedCleanly) {
  const auto full = samples::typical();
  for (size_t n = 0; n < full.size(); ++n) {
    Session s(cpu(), {});
    Writer out;
    try {
      s.handle(full.data(), n, out);
      ADD_FAILURE() << "a batch cut at " << n << " of " << full.size() << " bytes was accepted";
    } catch (const ProtocolError&) {
    }
  }
}

}  // namespace
}  // namespace burn::remote
