// Bad input raises a burn::Error subclass whose message names the op and the offending values.
#include <gtest/gtest.h>

#include "burn/tensor.hpp"
#include "expect_error.hpp"
#include "test_device.hpp"

using namespace burn;
using burn::testing::expect_error;

namespace {

using burn::testing::test_device;

template <typename T>
concept HasExp = requires(T t) {
  t.exp();
};
template <typename T>
concept HasPlus = requires(T a, T b) {
  a + b;
};

}  // namespace

TEST(Errors, MatmulInnerDimsNameShapes) {
  auto a = Tensor<2>::zeros({3, 4}, test_device());
  auto b = Tensor<2>::zeros({5, 6}, test_device());
  expect_error<ShapeError>([&] { a.matmul(b); }, {"[matmul]", "[3, 4]", "[5, 6]", "inner dimensions differ"});
}

TEST(Errors, BroadcastMismatch) {
  auto a = Tensor<2>::zeros({2, 3}, test_device());
  auto b = Tensor<2>::zeros({4, 3}, test_device());
  expect_error<ShapeError>([&] { (void)(a + b); }, {"[add]", "[2, 3]", "[4, 3]"});
}

TEST(Errors, RankMismatchOnConstruction) {
  expect_error<ShapeError>(
      [&] {
        Tensor<2>::from_vector(std::vector<float>{1, 2, 3}, {3}, test_device());
      },
      {"rank-2", "[3]"});
}

TEST(Errors, ReshapeElementCount) {
  auto a = Tensor<2>::zeros({2, 3}, test_device());
  expect_error<ShapeError>([&] { a.reshape({4, -1}); }, {"[reshape]", "[2, 3]", "[4, -1]"});
  expect_error<ShapeError>([&] { a.reshape({-1, -1}); }, {"[reshape]", "only one dim"});
}

TEST(Errors, DTypeMismatchAndWrongKind) {
  auto a = Tensor<1>::zeros({2}, test_device());
  auto b = Tensor<1>::zeros({2}, test_device(), DType::F64);
  expect_error<DTypeError>([&] { (void)(a + b); }, {"[add]", "f32", "f64"});
  auto i = Tensor<1, Int>::arange(0, 3, test_device());
  // Tensor<1, Int>::exp does not compile; the type-erased api still checks at run time.
  static_assert(!HasExp<Tensor<1, Int>> && HasExp<Tensor<1, Float>>);
  static_assert(!HasPlus<Tensor<1, Bool>> && HasPlus<Tensor<1, Int>>);
  expect_error<DTypeError>([&] { api::unary(OpId::exp, i.handle()); }, {"[exp]", "float", "i64"});
  expect_error<DTypeError>([&] { Tensor<1, Int>(a.handle()); }, {"Int", "f32"});
}

TEST(Errors, DimOutOfRange) {
  auto a = Tensor<2>::zeros({2, 3}, test_device());
  expect_error<IndexError>([&] { a.sum_dim(2); }, {"[sum_dim]", "dim 2", "rank 2"});
  expect_error<IndexError>([&] { a.softmax(-3); }, {"[softmax]", "dim -3"});
}

TEST(Errors, IndexOutOfRange) {
  auto a = Tensor<1>::from_list({1.0f, 2.0f, 3.0f}, test_device());
  auto idx = Tensor<1, Int>::from_list({0, 5}, test_device());
  expect_error<IndexError>([&] { a.select(0, idx); }, {"[select]", "5"});
  auto g = Tensor<1, Int>::from_list({-4}, test_device());
  expect_error<IndexError>([&] { a.gather(0, g); }, {"[gather]", "-4"});
  expect_error<IndexError>([&] { a.narrow(0, 2, 5); }, {"[narrow]", "dim 0", "size 3"});
}

TEST(Errors, IndicesMustBeInts) {
  auto a = Tensor<1>::from_list({1.0f, 2.0f}, test_device());
  auto bad = Tensor<1>::from_list({0.0f}, test_device());
  expect_error<DTypeError>([&] { api::select(a.handle(), 0, bad.handle()); }, {"[select]", "i64", "f32"});
}

TEST(Errors, DifferentDevices) {
  auto a = Tensor<1>::zeros({2}, Device::get("cpu"));
  auto b = Tensor<1>::zeros({2}, Device::get("trace<cpu>"));
  expect_error<DeviceError>([&] { (void)(a + b); }, {"[add]", "cpu", "trace<cpu>"});
  EXPECT_NO_THROW((void)(a + b.to_device(a.device())));
}

TEST(Errors, MalformedSpecs) {
  expect_error<DeviceError>([] { Device::get("trace<cpu"); }, {"trace<cpu", "position"});
  expect_error<DeviceError>([] { Device::get("<cpu>"); }, {"<cpu>"});
  expect_error<DeviceError>([] { Device::get(""); }, {"spec"});
  expect_error<PluginError>([] { Device::get("nosuchbackend"); }, {"nosuchbackend", "cpu"});
  expect_error<PluginError>([] { Device::get("nosuchdecorator<cpu>"); }, {"nosuchdecorator", "trace"});
}

TEST(Errors, BadArgumentValues) {
  expect_error<ValueError>([] { Tensor<1, Int>::arange(0, 5, test_device(), 0); }, {"[arange]", "step"});
  auto a = Tensor<1>::zeros({3}, test_device());
  expect_error<ValueError>([&] { a.slice({Slice::range(0, 3, 0)}); }, {"[slice]", "step", "0"});
  expect_error<ValueError>([&] { Tensor<1>::random({3}, Distribution::bernoulli(1.5), test_device()); },
                           {"[random]", "1.5"});
  auto i = Tensor<1, Int>::from_list({1, 2}, test_device());
  expect_error<ValueError>([&] { (void)(i / 0); }, {"division by zero"});
  expect_error<IndexError>([&] { a.topk(4, 0); }, {"[topk]", "k = 4", "size 3"});
}

TEST(Errors, CatShapesNameTheTensor) {
  auto a = Tensor<2>::zeros({2, 3}, test_device());
  auto b = Tensor<2>::zeros({2, 4}, test_device());
  expect_error<ShapeError>([&] { Tensor<2>::cat({a, b}, 0); }, {"[cat]", "tensor 1", "[2, 4]", "[2, 3]"});
}

TEST(Errors, EmptyReductions) {
  auto e = Tensor<1>::zeros({0}, test_device());
  expect_error<ValueError>([&] { e.max(); }, {"[max]", "empty"});
  expect_error<ValueError>([&] { e.argmax(0); }, {"[argmax]", "size 0"});
}

TEST(Errors, SliceAtOutOfRange) {
  auto a = Tensor<2>::zeros({2, 3}, test_device());
  expect_error<IndexError>([&] { a.slice({Slice::all(), Slice::at(5)}); }, {"[slice]", "index 5", "dim 1", "size 3"});
  expect_error<IndexError>([&] { a.slice({Slice::at(-3)}); }, {"[slice]", "index -3", "dim 0"});
  EXPECT_EQ(a.slice({Slice::at(-1)}).shape(), (Shape{1, 3}));
  EXPECT_EQ(a.slice({{1, 100}, {-100, 2}}).shape(), (Shape{1, 2}));  // ranges clamp like Python
}

TEST(Errors, DefaultConstructedTensorIsEmptyNotACrash) {
  Tensor<2> t;  // e.g. a member filled in later
  EXPECT_EQ(t.device().name(), "none");
  expect_error<ValueError>([&] { api::into_data(t.handle()); }, {"[into_data]", "empty"});
  expect_error<ValueError>(
      [&] {
        api::add(t.handle(), Tensor<2>::zeros({1, 1}, test_device()).handle());
      },
      {"[add]", "empty"});
  t = Tensor<2>::ones({1, 2}, test_device());
  EXPECT_EQ(t.to_vec<float>(), (std::vector<float>{1, 1}));
}
