// burn-example-tour: a short tour of the tensor API on a device chosen at run time (default "cpu").
#include <iostream>

#include "burn/tensor.hpp"

int main(int argc, char** argv) {
  using namespace burn;
  try {
    Device dev = Device::get(argc > 1 ? argv[1] : "cpu");
    std::cout << "device: " << dev.name() << "\n\n";

    auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, dev);
    auto w = Tensor<2>::from_vector(std::vector<float>{0.5f, -1, 2, 0, 1, 1}, {3, 2}, dev);
    std::cout << "x @ w =\n" << x.matmul(w) << "\n\n";
    std::cout << "softmax(x, dim=1) =\n" << x.softmax(1) << "\n\n";
    std::cout << "x.transpose().slice({{0, 2}}) =\n" << x.transpose().slice({{0, 2}}) << "\n\n";
    auto [values, indices] = x.sort_with_indices(1, /*descending=*/true);
    std::cout << "sorted descending: " << values.to_data().to_string() << ", indices " << indices.to_data().to_string()
              << "\n";

    dev.seed(42);
    auto r = Tensor<2>::random({1000, 100}, Distribution::normal(0, 1), dev);
    auto [var, mean] = r.flatten<1>(0, 1).var_mean(0);
    std::cout << "100k normal samples: mean " << mean.item<float>() << ", var " << var.item<float>() << "\n";

    auto labels = Tensor<1, Int>::from_list({2, 0, 1}, dev);
    std::cout << "one_hot(labels, 3) =\n" << labels.one_hot<Float>(3) << "\n";
    return 0;
  } catch (const burn::Error& e) {
    std::cerr << "burn-example-tour: " << e.what() << "\n";
    return 1;
  }
}
