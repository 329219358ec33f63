// PageGeometry's exact inverse: the engine turns bytes into pages by multiplying by it, which
// must give the bits that dividing by the page size gives, for every page size the kernel uses.
#include "machine/page_geometry.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

TEST(PageGeometry, InverseSizeMultipliesAsTheSizeDivides) {
    for (int shift : {12, 14, 16, 21, 24, 30}) {
        const PageGeometry g{shift, 9, 9};
        const double size = static_cast<double>(g.size());
        EXPECT_EQ(g.inverse_size(), 1.0 / size) << "shift " << shift;
        for (double bytes : {0.0, 1.0, 4095.999, 4096.0, 12345.678, 3.3e9, 1.0 / 3, 7e15})
            EXPECT_EQ(bytes * g.inverse_size(), bytes / size) << bytes << " at shift " << shift;
    }
    static_assert(kPages4K.inverse_size() == 1.0 / 4096);
}

}  // namespace
}  // namespace numasim
