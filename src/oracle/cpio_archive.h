// A newc ("070701") cpio archive, the format the kernel unpacks as an initramfs
// (Documentation/driver-api/early-userspace/buffer-format.rst). Written in memory with fixed
// inode numbers and zero timestamps, so the same files give the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace numasim {

class CpioArchive {
  public:
    void add_directory(std::string_view path, uint32_t perm = 0755);
    void add_file(std::string_view path, std::string_view data, uint32_t perm = 0644);
    void add_symlink(std::string_view path, std::string_view target);
    void add_char_device(std::string_view path, uint32_t major, uint32_t minor,
                         uint32_t perm = 0600);
    // Appends the TRAILER!!! entry and returns the archive; the object is empty afterwards.
    std::string finish();

  private:
    void add(std::string_view path, uint32_t mode, std::string_view data, uint32_t rmajor = 0,
             uint32_t rminor = 0);

    std::string out_;
    uint32_t next_ino_ = 1;
};

}  // namespace numasim
