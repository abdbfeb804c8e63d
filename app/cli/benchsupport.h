#pragma once

// A scratch folder for a benchmark's generated inputs: a fresh temporary folder removed when
// the bench ends, or a folder the user named (--keep), which is kept.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tracedesk::cli {

class ScratchDir
{
public:
    ~ScratchDir()
    {
        std::error_code ec;
        if (!m_path.empty() && !m_keep)
            std::filesystem::remove_all(m_path, ec);
    }
    bool create()
    {
        std::error_code ec;
        std::string pattern =
            (std::filesystem::temp_directory_path(ec) / "tracedesk-bench-XXXXXX").string();
        if (ec || !::mkdtemp(pattern.data()))
            return false;
        m_path = pattern;
        return true;
    }
    bool use(const std::string &dir)
    {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        m_path = dir;
        m_keep = true;
        return !ec && std::filesystem::is_directory(dir, ec);
    }
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
    bool m_keep = false;
};

} // namespace tracedesk::cli
