// A library that dlopen must refuse: it calls burn_test::dep_value(), which is either in a library that
// is not on any search path (missingdep) or nowhere at all (undefsym). No entry symbol is needed: the
// host must stop at dlopen and say which library or symbol is missing.
namespace burn_test {
int dep_value();
}

extern "C" __attribute__((visibility("default"))) int burn_test_unresolved() { return burn_test::dep_value(); }
