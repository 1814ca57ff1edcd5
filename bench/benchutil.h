// Shared helpers of the bench_* executables: wall-clock timing and tiny JSON output.
#pragma once

#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// Seconds taken by one call of fn.
template<typename Fn>
double timeOnce(Fn &&fn)
{
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Best (smallest) wall time of `repeat` calls of fn.
template<typename Fn>
double bestOf(int repeat, Fn &&fn)
{
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < repeat; ++i)
        best = std::min(best, timeOnce(fn));
    return best;
}

/// A flat JSON object built in insertion order: {"k": v, ...}.
class Json
{
public:
    Json &add(const char *key, double v)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return raw(key, v != v || v - v != 0 ? std::string("null") : std::string(buf));
    }
    Json &add(const char *key, long long v) { return raw(key, std::to_string(v)); }
    Json &add(const char *key, unsigned long long v) { return raw(key, std::to_string(v)); }
    Json &add(const char *key, unsigned long v) { return add(key, (unsigned long long)v); }
    Json &add(const char *key, int v) { return add(key, (long long)v); }
    Json &add(const char *key, const std::string &s) { return raw(key, '"' + s + '"'); }
    Json &add(const char *key, const char *s) { return add(key, std::string(s)); }
    Json &add(const char *key, const Json &nested) { return raw(key, nested.str()); }

    std::string str() const
    {
        std::string out = "{";
        for (size_t i = 0; i < m_items.size(); ++i)
            out += (i ? ", \"" : "\"") + m_items[i].first + "\": " + m_items[i].second;
        return out + "}";
    }
    void print() const { std::printf("%s\n", str().c_str()); }

private:
    Json &raw(const char *key, std::string value)
    {
        m_items.emplace_back(key, std::move(value));
        return *this;
    }
    std::vector<std::pair<std::string, std::string>> m_items;
};

} // namespace bench
