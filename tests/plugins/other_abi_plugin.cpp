// A test plugin built, as far as its entry point says, for the next ABI version.
#include "numasim/policy_plugin.h"

namespace {
const numasim_plugin::Descriptor kOther{"other-abi", "never registered", 0, nullptr};
}  // namespace

extern "C" __attribute__((visibility("default"))) uint32_t numasim_policy_plugin(
    const numasim_plugin::Descriptor** out) {
    *out = &kOther;
    return numasim_plugin::kAbiVersion + 1;
}
