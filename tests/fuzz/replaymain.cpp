// Replays files (or every file below directories) through a libFuzzer harness without
// libFuzzer, so the regression corpus runs in every normal and sanitizer build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size);

namespace {

bool runFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A copy in its own allocation: ASan sees reads past the end as in libFuzzer.
    std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
    std::uint8_t *data = input.empty() ? nullptr : input.data();
    LLVMFuzzerTestOneInput(data, input.size());
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    size_t files = 0;
    bool ok = true;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path p(argv[i]);
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec)) {
            std::vector<std::filesystem::path> paths;
            for (const auto &e : std::filesystem::recursive_directory_iterator(p))
                if (e.is_regular_file())
                    paths.push_back(e.path());
            std::sort(paths.begin(), paths.end());
            for (const auto &f : paths) {
                ok &= runFile(f);
                ++files;
            }
        } else if (std::filesystem::is_regular_file(p, ec)) {
            ok &= runFile(p);
            ++files;
        } else {
            std::fprintf(stderr, "not found: %s\n", argv[i]);
            ok = false;
        }
    }
    std::printf("replayed %zu inputs\n", files);
    return ok && files > 0 ? 0 : 1;
}
