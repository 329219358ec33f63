#include "oracle/cpio_archive.h"

#include <fmt/format.h>
#include <sys/stat.h>

namespace numasim {

namespace {

void pad4(std::string& s) {
    while (s.size() % 4)
        s += '\0';
}

}  // namespace

void CpioArchive::add(std::string_view path, uint32_t mode, std::string_view data, uint32_t rmajor,
                      uint32_t rminor) {
    const bool dir = (mode & S_IFMT) == S_IFDIR;
    // Fields: magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor,
    // rdevmajor, rdevminor, namesize (with the NUL), check.
    out_ += fmt::format(
        "070701{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}{:08X}"
        "{:08X}{:08X}",
        path == "TRAILER!!!" ? 0 : next_ino_++, mode, 0, 0, dir ? 2 : 1, 0, data.size(), 0, 0,
        rmajor, rminor, path.size() + 1, 0);
    out_ += path;
    out_ += '\0';
    pad4(out_);
    out_ += data;
    pad4(out_);
}

void CpioArchive::add_directory(std::string_view path, uint32_t perm) {
    add(path, S_IFDIR | perm, {});
}

void CpioArchive::add_file(std::string_view path, std::string_view data, uint32_t perm) {
    add(path, S_IFREG | perm, data);
}

void CpioArchive::add_symlink(std::string_view path, std::string_view target) {
    add(path, S_IFLNK | 0777, target);
}

void CpioArchive::add_char_device(std::string_view path, uint32_t major, uint32_t minor,
                                  uint32_t perm) {
    add(path, S_IFCHR | perm, {}, major, minor);
}

std::string CpioArchive::finish() {
    add("TRAILER!!!", 0, {});
    std::string s = std::move(out_);
    out_.clear();
    next_ino_ = 1;
    return s;
}

}  // namespace numasim
