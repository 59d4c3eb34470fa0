// A shared library named like a plugin but without `burn_plugin_entry`: the host must reject it.
extern "C" __attribute__((visibility("default"))) int burn_not_a_plugin() { return 42; }
