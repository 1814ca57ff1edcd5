// Linked into every Qt Test executable (tests/CMakeLists.txt, dumpscope_add_test).
//
// The tests name the samples, the source tree and the CLI by paths relative to their own
// folder (DUMPSCOPE_SAMPLES is "../../../samples" in build/<preset>/tests/core), so that every
// clone of the project compiles them with the same command line and shares the compiler cache
// (an absolute path in a -D made each test a cache miss in every new clone: about 6 minutes of
// CI). Those paths hold whatever the working directory: the process moves into the folder of
// its executable before main() runs, and before any static object of the test is built (a
// constructor of priority 101 runs before the default-priority ones of every object file).
#include <climits>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace {

__attribute__((constructor(101))) void moveToExecutableFolder()
{
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return;
    path[n] = '\0';
    if (char *slash = std::strrchr(path, '/'); slash && slash != path) {
        *slash = '\0';
        if (chdir(path) != 0)
            std::fprintf(stderr, "testcwd: cannot enter %s: the tests' relative paths will not resolve\n", path);
    }
}

} // namespace
