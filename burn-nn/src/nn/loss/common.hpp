// Checks and reductions shared by the losses (private to burn-nn).
#pragma once

#include <string>
#include <vector>

#include "burn/nn/loss/reduction.hpp"

namespace burn::nn::loss::detail {

using H = TensorHandle;

// The tensor's shape; ValueError naming the loss for an empty tensor.
const Shape& shape_of(const H& h, const char* op, const char* what);
// A float tensor of a rank (any rank for -1); ShapeError/DTypeError naming the loss and the shape.
void require_float(const H& h, const char* op, const char* what, int64_t rank = -1);
void require_int(const H& h, const char* op, const char* what, int64_t rank = -1);
void require_same_shape(const H& a, const H& b, const char* op, const char* what_a, const char* what_b);
// Mean/Auto: the mean of every element; Sum; nullopt: the loss as is. BatchMean is a ValueError here.
H reduce(H loss, Red r, const char* op);
// ValueError for Reduction::BatchMean, for the losses that reduce by their own rule.
void refuse_batch_mean(Red r, const char* op);
// A per-class vector from a config ([n], in the device's float dtype); ValueError if n does not match.
std::optional<Tensor<1>> class_vector(const std::vector<double>& v, const Device& d);
// A loss's own tensor (class weights) on the device and in the float dtype of `like`, the input: a
// loss built on cpu may be used on autodiff<cpu>, or in f64.
H like(const H& h, const H& like);
std::vector<int64_t> int_values(const H& h);
// min and max of a float tensor, read back to the host for a value check.
std::pair<double, double> min_max(const H& h);
std::string num(double v);

}  // namespace burn::nn::loss::detail
