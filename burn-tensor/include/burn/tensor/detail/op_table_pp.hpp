// Preprocessor helpers that turn an op-table row's (type, name) pairs into a parameter list, an
// argument list or a type list, so that a row writes each parameter once.
#pragma once

#include <utility>

#define BURN_PP_STRINGIFY_(...) #__VA_ARGS__
#define BURN_PP_STRINGIFY(...) BURN_PP_STRINGIFY_(__VA_ARGS__)
#define BURN_PP_CAT_(a, b) a##b
#define BURN_PP_CAT(a, b) BURN_PP_CAT_(a, b)
#define BURN_PP_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, N, ...) N
#define BURN_PP_NARGS(...) BURN_PP_NARGS_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)

// BURN_PP_MAP(M, (a, b), (c, d)) -> M(a, b), M(c, d)
#define BURN_PP_MAP(M, ...) BURN_PP_CAT(BURN_PP_MAP_, BURN_PP_NARGS(__VA_ARGS__))(M, __VA_ARGS__)
#define BURN_PP_MAP_1(M, p) M p
#define BURN_PP_MAP_2(M, p, ...) M p, BURN_PP_MAP_1(M, __VA_ARGS__)
#define BURN_PP_MAP_3(M, p, ...) M p, BURN_PP_MAP_2(M, __VA_ARGS__)
#define BURN_PP_MAP_4(M, p, ...) M p, BURN_PP_MAP_3(M, __VA_ARGS__)
#define BURN_PP_MAP_5(M, p, ...) M p, BURN_PP_MAP_4(M, __VA_ARGS__)
#define BURN_PP_MAP_6(M, p, ...) M p, BURN_PP_MAP_5(M, __VA_ARGS__)
#define BURN_PP_MAP_7(M, p, ...) M p, BURN_PP_MAP_6(M, __VA_ARGS__)
#define BURN_PP_MAP_8(M, p, ...) M p, BURN_PP_MAP_7(M, __VA_ARGS__)
#define BURN_PP_MAP_9(M, p, ...) M p, BURN_PP_MAP_8(M, __VA_ARGS__)
#define BURN_PP_MAP_10(M, p, ...) M p, BURN_PP_MAP_9(M, __VA_ARGS__)
#define BURN_PP_MAP_11(M, p, ...) M p, BURN_PP_MAP_10(M, __VA_ARGS__)
#define BURN_PP_MAP_12(M, p, ...) M p, BURN_PP_MAP_11(M, __VA_ARGS__)

#define BURN_PP_PARAM(type, name) type name
#define BURN_PP_ARG(type, name) std::forward<type>(name)
#define BURN_PP_TYPE(type, name) type
#define BURN_PP_NAME(type, name) name

// (Prim x, size_t dim): the parameter list of a row's (type, name) pairs.
#define BURN_OP_PARAMS(...) (BURN_PP_MAP(BURN_PP_PARAM, __VA_ARGS__))
// (std::forward<Prim>(x), std::forward<size_t>(dim)): moves the Prims, passes the rest.
#define BURN_OP_ARGS(...) (BURN_PP_MAP(BURN_PP_ARG, __VA_ARGS__))
// Without the parentheses, to pass after other arguments.
#define BURN_OP_ARG_LIST(...) BURN_PP_MAP(BURN_PP_ARG, __VA_ARGS__)
