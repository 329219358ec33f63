// hash_32() of include/linux/hash.h: multiplicative hashing by the 32-bit golden ratio, keeping
// the top `bits` bits. vma_set_access_pid_bit() uses it to pick a task's bit in pids_active.
#include "numab/numab.h"

namespace numasim {

// GOLDEN_RATIO_32 of include/linux/hash.h: 2^32 / phi, the constant of Knuth's multiplicative
// hash (the kernel uses 0x61C88647, which is 2^32 - 0x9E3779B9).
inline constexpr uint32_t GOLDEN_RATIO_32 = 0x61C88647u;

uint32_t hash_32(uint32_t val, unsigned bits) {
    if (bits == 0) return 0;  // avoids a 32-bit shift; the kernel never asks for 0 bits
    return (val * GOLDEN_RATIO_32) >> (32 - bits);
}

}  // namespace numasim
