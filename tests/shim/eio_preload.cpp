// An LD_PRELOAD library that makes a disk fail with EIO under numasim, for the fault-injection
// tests (tests/cli/fault_injection_test.cpp, docs/reliability.md "Faults of the host").
//
// A full disk (ENOSPC) can be had from a small tmpfs; a failing disk cannot, and device-mapper's
// error target needs block devices that containers rarely give. So the files numasim opens for
// writing whose path contains $NUMASIM_EIO_MATCH get a stdio stream of our own
// (fopencookie(3)): its first $NUMASIM_EIO_AFTER bytes (default 0) reach the file through
// write(2), and every write after them fails with EIO, as write(2) on a failing device reports
// it. Everything above the stream (buffering, fflush, ferror, fclose) is glibc's, so numasim
// meets the error exactly where a real one would surface.
//
// Why fopen and fdopen, not write: glibc's stdio calls its internal write, which LD_PRELOAD
// cannot interpose, and numasim writes its files through stdio (src/cli/output_file.cpp).
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace {

struct Cookie {
    int fd;
    unsigned long long left;  // bytes that still succeed
};

// The configured substring, or null when the variable is unset or empty (the shim then does
// nothing).
const char* match() {
    const char* m = std::getenv("NUMASIM_EIO_MATCH");
    return m && *m ? m : nullptr;
}

unsigned long long bytes_before_failing() {
    const char* a = std::getenv("NUMASIM_EIO_AFTER");
    return a ? std::strtoull(a, nullptr, 10) : 0;
}

bool writes(const char* mode) {
    return mode && (std::strchr(mode, 'w') || std::strchr(mode, 'a') || std::strchr(mode, '+'));
}

// The path of an open descriptor, as /proc shows it.
std::string fd_path(int fd) {
    char link[64], path[PATH_MAX];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = ::readlink(link, path, sizeof path - 1);
    return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

ssize_t cookie_write(void* c, const char* buf, size_t size) {
    auto* k = static_cast<Cookie*>(c);
    if (k->left == 0) {
        errno = EIO;
        return -1;
    }
    const size_t n = size < k->left ? size : static_cast<size_t>(k->left);
    const ssize_t w = ::write(k->fd, buf, n);
    if (w > 0) k->left -= static_cast<unsigned long long>(w);
    return w;
}

int cookie_seek(void* c, off64_t* offset, int whence) {
    const off64_t at = ::lseek64(static_cast<Cookie*>(c)->fd, *offset, whence);
    if (at < 0) return -1;
    *offset = at;
    return 0;
}

int cookie_close(void* c) {
    auto* k = static_cast<Cookie*>(c);
    const int rc = ::close(k->fd);
    delete k;
    return rc;
}

// A stream on `fd` whose writes fail after the configured bytes; null (and fd closed) if one
// cannot be made.
FILE* failing_stream(int fd, const char* mode) {
    auto* k = new (std::nothrow) Cookie{fd, bytes_before_failing()};
    FILE* f =
        k ? fopencookie(k, mode, {nullptr, cookie_write, cookie_seek, cookie_close}) : nullptr;
    if (!f) {
        delete k;
        ::close(fd);
    }
    return f;
}

template <typename F>
F next(const char* name) {
    return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

FILE* open_path(const char* real_name, const char* path, const char* mode) {
    using Fopen = FILE* (*)(const char*, const char*);
    static const Fopen real = next<Fopen>(real_name);
    const char* m = match();
    if (!m || !writes(mode) || !std::strstr(path, m)) return real(path, mode);
    FILE* f = real(path, mode);  // glibc's own open, with its flags for `mode`
    if (!f) return nullptr;
    const int fd = ::dup(fileno(f));
    std::fclose(f);
    return fd < 0 ? nullptr : failing_stream(fd, mode);
}

}  // namespace

extern "C" {

FILE* fopen(const char* path, const char* mode) {
    return open_path("fopen", path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
    return open_path("fopen64", path, mode);
}

FILE* fdopen(int fd, const char* mode) {
    using Fdopen = FILE* (*)(int, const char*);
    static const Fdopen real = next<Fdopen>("fdopen");
    const char* m = match();
    if (!m || !writes(mode) || fd_path(fd).find(m) == std::string::npos) return real(fd, mode);
    return failing_stream(fd, mode);
}
}
