// The dependency of the missingdep test plugin, built where the dynamic loader never looks.
namespace burn_test {
__attribute__((visibility("default"))) int dep_value() { return 7; }
}  // namespace burn_test
