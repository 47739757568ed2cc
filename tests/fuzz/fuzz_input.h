/* fuzz_input: hands a fuzzer's bytes to a reader that takes a path, through
 * an in-memory file (memfd) named /proc/self/fd/N: no disk traffic. */
#ifndef SCITORUS_FUZZ_INPUT_H
#define SCITORUS_FUZZ_INPUT_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_memfd(const unsigned char *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return -1;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
