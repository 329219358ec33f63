#include "mm/mempolicy.h"

#include <bit>

namespace numasim {

int MemPolicy::first_node() const {
    return nodes ? std::countr_zero(nodes) : -1;
}
int MemPolicy::weight() const {
    return std::popcount(nodes);
}

std::string to_string(MpolMode m) {
    switch (m) {
        case MpolMode::Default:
            return "default";
        case MpolMode::Preferred:
            return "preferred";
        case MpolMode::Bind:
            return "bind";
        case MpolMode::Interleave:
            return "interleave";
        case MpolMode::Local:
            return "local";
    }
    return "?";
}

bool parse_mpol_mode(const std::string& s, MpolMode& out) {
    for (MpolMode m : {MpolMode::Default, MpolMode::Preferred, MpolMode::Bind, MpolMode::Interleave,
                       MpolMode::Local})
        if (to_string(m) == s) {
            out = m;
            return true;
        }
    return false;
}

}  // namespace numasim
