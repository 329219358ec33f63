// Plain left-aligned text tables as people paste into LKML mails (e.g. Srikar Dronamraju's
// SMALLIMP posting): every column padded to its widest cell plus a gap, last column unpadded.
#pragma once

#include <string>
#include <vector>

namespace numasim {

struct TextTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

inline constexpr size_t kPostingColumnGap = 2;

std::string render_aligned(const TextTable& table, size_t gap = kPostingColumnGap);

}  // namespace numasim
