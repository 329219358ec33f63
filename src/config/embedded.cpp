#include "config/embedded.h"

namespace numasim {

const EmbeddedFile* find_embedded(std::string_view group, std::string_view name) {
    for (const auto& f : embedded_files())
        if (f.group == group && f.name == name) return &f;
    return nullptr;
}

}  // namespace numasim
