#include "oracle/kernel_image.h"

#include <gtest/gtest.h>

#include "oracle/debian_kernel.h"

namespace numasim {
namespace {

// A bzImage head with the setup header fields the release reader uses.
std::string fake_bzimage(const std::string& version, uint16_t protocol = 0x20f) {
    std::string img(0x1000, '\0');
    img.replace(0x202, 4, "HdrS");
    img[0x206] = static_cast<char>(protocol & 0xff);
    img[0x207] = static_cast<char>(protocol >> 8);
    const uint16_t ptr = 0x600;  // the string sits at ptr + 0x200
    img[0x20E] = static_cast<char>(ptr & 0xff);
    img[0x20F] = static_cast<char>(ptr >> 8);
    img.replace(0x800, version.size(), version);
    return img;
}

TEST(BzimageRelease, FirstWordOfTheVersionString) {
    EXPECT_EQ(bzimage_release(fake_bzimage("6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1")),
              "6.1.0-57-amd64");
    EXPECT_EQ(bzimage_release(fake_bzimage("6.12.0-rc3+")), "6.12.0-rc3+");
}

TEST(BzimageRelease, RejectsOtherFiles) {
    EXPECT_FALSE(bzimage_release("not a kernel"));
    std::string img = fake_bzimage("6.1.0");
    img[0x202] = 'X';
    EXPECT_FALSE(bzimage_release(img));
    EXPECT_FALSE(bzimage_release(fake_bzimage("6.1.0", 0x1ff)));  // before boot protocol 2.00
}

TEST(KernelSeries, MajorMinor) {
    EXPECT_EQ(kernel_series("6.1.0-57-amd64"), "v6.1");
    EXPECT_EQ(kernel_series("6.12.3"), "v6.12");
    EXPECT_EQ(kernel_series("4.19.0-27-amd64"), "v4.19");
    EXPECT_EQ(kernel_series("linux"), "");
}

TEST(KernelConfig, NumaBalancingMustBeBuiltIn) {
    EXPECT_TRUE(config_has_numa_balancing("CONFIG_NUMA=y\nCONFIG_NUMA_BALANCING=y\n"));
    EXPECT_FALSE(config_has_numa_balancing("# CONFIG_NUMA_BALANCING is not set\n"));
    EXPECT_FALSE(config_has_numa_balancing("CONFIG_NUMA_BALANCING_DEFAULT_ENABLED=y\n"));
}

TEST(DebianImagePackage, FromAptCacheDepends) {
    const char* out =
        "linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n  Suggests: firmware\n";
    EXPECT_EQ(debian_image_package(out), "linux-image-6.1.0-57-amd64");
    EXPECT_FALSE(debian_image_package("linux-image-amd64\n"));
}

// `--kernel-package`: a metapackage boots the image package it depends on, an image package
// itself, each in its -unsigned flavour (the outputs are `apt-cache depends` of bookworm's).
TEST(DebianUnsignedPackage, MetapackageImagePackageAndBadNames) {
    const char* meta612 = "linux-image-6.12-amd64\n  Depends: linux-image-6.12.118+deb12-amd64\n";
    EXPECT_EQ(debian_unsigned_package("linux-image-6.12-amd64", meta612),
              "linux-image-6.12.118+deb12-amd64-unsigned");
    const char* image =
        "linux-image-6.12.118+deb12-amd64\n  PreDepends: linux-base\n  Depends: kmod\n"
        " |Depends: initramfs-tools\n  Conflicts: linux-image-6.12.118+deb12-amd64-unsigned\n";
    EXPECT_EQ(debian_unsigned_package("linux-image-6.12.118+deb12-amd64", image),
              "linux-image-6.12.118+deb12-amd64-unsigned");
    EXPECT_EQ(debian_unsigned_package("linux-image-6.12.118+deb12-amd64-unsigned", ""),
              "linux-image-6.12.118+deb12-amd64-unsigned");
    EXPECT_FALSE(debian_unsigned_package("linux-headers-6.12-amd64", meta612));
    EXPECT_FALSE(debian_unsigned_package("linux-image-", ""));
    EXPECT_FALSE(debian_unsigned_package("bash", ""));
}

// Debian 12's 6.1 config has `# CONFIG_DAMON is not set`; its 6.12 config has both options.
TEST(KernelConfig, DamonNeedsVaddrAndSysfs) {
    EXPECT_FALSE(
        config_has_damon_vaddr_sysfs("# CONFIG_DAMON is not set\nCONFIG_NUMA_BALANCING=y\n"));
    EXPECT_FALSE(config_has_damon_vaddr_sysfs("CONFIG_DAMON=y\nCONFIG_DAMON_VADDR=y\n"));
    EXPECT_FALSE(config_has_damon_vaddr_sysfs("CONFIG_DAMON=y\nCONFIG_DAMON_SYSFS=y\n"));
    EXPECT_TRUE(config_has_damon_vaddr_sysfs(
        "CONFIG_DAMON=y\nCONFIG_DAMON_VADDR=y\nCONFIG_DAMON_PADDR=y\nCONFIG_DAMON_SYSFS=y\n"));
}

}  // namespace
}  // namespace numasim
