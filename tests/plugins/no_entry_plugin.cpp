// A test plugin that is a shared object but defines no numasim_policy_plugin entry point.
extern "C" __attribute__((visibility("default"))) int not_a_policy() {
    return 0;
}
