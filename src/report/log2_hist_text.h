// A log2 histogram as bcc's print_log2_hist() prints it (funclatency, runqlat, biolatency): a
// header naming the unit, then one row per power of two up to the highest one used,
// "low -> high : count |stars|", with 40 stars for the largest count (20 when the values need
// the wide layout, beyond 2^32). Nothing for an empty histogram, as bcc prints nothing.
#pragma once

#include <string>
#include <string_view>

#include "sim/log2_hist.h"

namespace numasim {

std::string log2_hist_text(const Log2Hist& h, std::string_view unit);

}  // namespace numasim
