#include "core/generate/xspacewriter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace tracedesk::core {

namespace {

constexpr size_t kSpillThreshold = 1 << 20;

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2 };

template<typename Out>
void putVarint(Out &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(char(uint8_t(v) | 0x80));
        v >>= 7;
    }
    out.push_back(char(uint8_t(v)));
}

template<typename Out>
void putTag(Out &out, int field, WireType type)
{
    putVarint(out, uint64_t(field) << 3 | type);
}

template<typename Out>
void putVarintField(Out &out, int field, uint64_t v)
{
    putTag(out, field, kVarint);
    putVarint(out, v);
}

template<typename Out>
void putBytesField(Out &out, int field, std::string_view bytes)
{
    putTag(out, field, kLen);
    putVarint(out, bytes.size());
    out.insert(out.end(), bytes.begin(), bytes.end());
}

size_t varintSize(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

// Appends `stats` as repeated field `field` (each piece already carries its length).
void putStats(std::string &out, int field, const XStatList &stats)
{
    uint32_t begin = 0;
    for (uint32_t end : stats.ends()) {
        putTag(out, field, kLen);
        out.append(stats.bytes(), begin, end - begin);
        begin = end;
    }
}

class BufferedFile
{
public:
    explicit BufferedFile(std::FILE *f) : m_file(f) { m_buffer.reserve(kSize); }
    void write(const void *data, size_t size)
    {
        if (m_buffer.size() + size > kSize)
            flush();
        if (size >= kSize) {
            m_ok = m_ok && std::fwrite(data, 1, size, m_file) == size;
        } else {
            const auto *p = static_cast<const char *>(data);
            m_buffer.insert(m_buffer.end(), p, p + size);
        }
        m_written += size;
    }
    void write(std::string_view s) { write(s.data(), s.size()); }
    void flush()
    {
        if (!m_buffer.empty())
            m_ok = m_ok && std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) == m_buffer.size();
        m_buffer.clear();
    }
    bool ok() const { return m_ok; }
    uint64_t written() const { return m_written; }

private:
    static constexpr size_t kSize = 1 << 20;
    std::FILE *m_file;
    std::vector<char> m_buffer;
    bool m_ok = true;
    uint64_t m_written = 0;
};

} // namespace

void XStatList::finishStat(const std::string &body)
{
    putVarint(m_bytes, body.size());
    m_bytes += body;
    m_ends.push_back(uint32_t(m_bytes.size()));
}

void XStatList::addInt(int64_t statId, int64_t value)
{
    m_scratch.clear();
    putVarintField(m_scratch, 1, uint64_t(statId));
    putVarintField(m_scratch, 4, uint64_t(value));
    finishStat(m_scratch);
}

void XStatList::addUInt(int64_t statId, uint64_t value)
{
    m_scratch.clear();
    putVarintField(m_scratch, 1, uint64_t(statId));
    putVarintField(m_scratch, 3, value);
    finishStat(m_scratch);
}

void XStatList::addDouble(int64_t statId, double value)
{
    m_scratch.clear();
    putVarintField(m_scratch, 1, uint64_t(statId));
    putTag(m_scratch, 2, kFixed64);
    char raw[8];
    std::memcpy(raw, &value, 8); // little-endian host, as protobuf's fixed64
    m_scratch.append(raw, 8);
    finishStat(m_scratch);
}

void XStatList::addString(int64_t statId, std::string_view value)
{
    m_scratch.clear();
    putVarintField(m_scratch, 1, uint64_t(statId));
    putBytesField(m_scratch, 5, value);
    finishStat(m_scratch);
}

void XStatList::addRef(int64_t statId, int64_t refStatId)
{
    m_scratch.clear();
    putVarintField(m_scratch, 1, uint64_t(statId));
    putVarintField(m_scratch, 7, uint64_t(refStatId));
    finishStat(m_scratch);
}

void XStatList::clear()
{
    m_bytes.clear();
    m_ends.clear();
}

XSpaceWriter::XSpaceWriter(std::string path) : m_path(std::move(path)) {}

XSpaceWriter::~XSpaceWriter()
{
    if (m_spillFd >= 0)
        ::close(m_spillFd);
}

Result<bool> XSpaceWriter::open()
{
    // The spill file lives next to the output (same file system, usually more room than /tmp)
    // and is unlinked at once, so nothing is left behind whatever happens.
    std::string pattern = m_path + ".spill-XXXXXX";
    m_spillFd = ::mkstemp(pattern.data());
    if (m_spillFd < 0)
        return fileError(m_path, "cannot create a temporary file next to it");
    ::unlink(pattern.c_str());
    return true;
}

uint32_t XSpaceWriter::addPlane(int64_t id, std::string_view name)
{
    Plane &p = m_planes.emplace_back();
    p.id = id;
    p.name = name;
    return uint32_t(m_planes.size() - 1);
}

int64_t XSpaceWriter::eventMetadata(uint32_t plane, std::string_view name)
{
    Plane &p = m_planes[plane];
    auto [it, inserted] = p.eventIds.try_emplace(std::string(name), int64_t(p.events.size() + 1));
    if (inserted)
        p.events.push_back({std::string(name), {}});
    return it->second;
}

void XSpaceWriter::setEventMetadataStats(uint32_t plane, int64_t metadataId, const XStatList &stats)
{
    std::string &out = m_planes[plane].events[size_t(metadataId - 1)].stats;
    out.clear();
    putStats(out, 5, stats);
}

int64_t XSpaceWriter::statMetadata(uint32_t plane, std::string_view name)
{
    Plane &p = m_planes[plane];
    auto [it, inserted] = p.statIds.try_emplace(std::string(name), int64_t(p.statNames.size() + 1));
    if (inserted)
        p.statNames.emplace_back(name);
    return it->second;
}

void XSpaceWriter::setPlaneStats(uint32_t plane, const XStatList &stats)
{
    m_planes[plane].stats.clear();
    putStats(m_planes[plane].stats, 6, stats);
}

uint32_t XSpaceWriter::addLine(uint32_t plane, int64_t id, std::string_view name, int64_t timestampNs)
{
    Line &l = m_lines.emplace_back();
    l.id = id;
    l.name = name;
    l.timestampNs = timestampNs;
    const auto index = uint32_t(m_lines.size() - 1);
    m_planes[plane].lines.push_back(index);
    return index;
}

void XSpaceWriter::addEvent(uint32_t line, int64_t metadataId, int64_t offsetPs, int64_t durationPs,
                            const XStatList *stats)
{
    Line &l = m_lines[line];
    m_event.clear();
    putVarintField(m_event, 1, uint64_t(metadataId));
    putVarintField(m_event, 2, uint64_t(offsetPs));
    putVarintField(m_event, 3, uint64_t(durationPs));
    if (stats)
        putStats(m_event, 4, *stats);
    putTag(l.buffer, 4, kLen);
    putVarint(l.buffer, m_event.size());
    l.buffer.insert(l.buffer.end(), m_event.begin(), m_event.end());
    l.maxEndPs = std::max(l.maxEndPs, offsetPs + durationPs);
    if (l.buffer.size() >= kSpillThreshold && !spill(l))
        m_failed = true;
}

bool XSpaceWriter::spill(Line &line)
{
    const uint8_t *p = line.buffer.data();
    size_t left = line.buffer.size();
    uint64_t at = m_spillEnd;
    while (left > 0) {
        const ssize_t n = ::pwrite(m_spillFd, p, left, off_t(at));
        if (n <= 0)
            return false;
        p += n;
        left -= size_t(n);
        at += uint64_t(n);
    }
    line.spilled.push_back({m_spillEnd, line.buffer.size()});
    line.eventBytes += line.buffer.size();
    m_spillEnd = at;
    line.buffer.clear();
    return true;
}

std::string XSpaceWriter::lineHeader(const Line &l) const
{
    std::string h;
    putVarintField(h, 1, uint64_t(l.id));
    putBytesField(h, 2, l.name);
    putVarintField(h, 3, uint64_t(l.timestampNs));
    putVarintField(h, 9, uint64_t(l.maxEndPs));
    return h;
}

std::string XSpaceWriter::planeTail(const Plane &p) const
{
    std::string tail;
    std::string entry, value;
    for (size_t i = 0; i < p.events.size(); ++i) {
        value.clear();
        putVarintField(value, 1, uint64_t(i + 1));
        putBytesField(value, 2, p.events[i].name);
        value += p.events[i].stats;
        entry.clear();
        putVarintField(entry, 1, uint64_t(i + 1));
        putBytesField(entry, 2, value);
        putBytesField(tail, 4, entry);
    }
    for (size_t i = 0; i < p.statNames.size(); ++i) {
        value.clear();
        putVarintField(value, 1, uint64_t(i + 1));
        putBytesField(value, 2, p.statNames[i]);
        entry.clear();
        putVarintField(entry, 1, uint64_t(i + 1));
        putBytesField(entry, 2, value);
        putBytesField(tail, 5, entry);
    }
    tail += p.stats;
    return tail;
}

Result<uint64_t> XSpaceWriter::finish()
{
    if (m_failed || m_spillFd < 0)
        return fileError(m_path, "could not be written (temporary file error; disk full?)");
    for (Line &l : m_lines)
        l.eventBytes += l.buffer.size();

    const std::string partial = m_path + ".partial";
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(partial.c_str(), "wb"), std::fclose);
    if (!f)
        return fileError(m_path, "cannot be created");
    BufferedFile out(f.get());
    std::vector<uint8_t> chunk;
    bool ok = true;
    for (const Plane &p : m_planes) {
        std::string head;
        putVarintField(head, 1, uint64_t(p.id));
        putBytesField(head, 2, p.name);
        const std::string tail = planeTail(p);
        std::vector<std::string> headers;
        uint64_t size = head.size() + tail.size();
        for (uint32_t index : p.lines) {
            const Line &l = m_lines[index];
            headers.push_back(lineHeader(l));
            const uint64_t lineSize = headers.back().size() + l.eventBytes;
            size += 1 + varintSize(lineSize) + lineSize;
        }
        std::string prefix;
        putTag(prefix, 1, kLen);
        putVarint(prefix, size);
        out.write(prefix);
        out.write(head);
        for (size_t k = 0; k < p.lines.size(); ++k) {
            const Line &l = m_lines[p.lines[k]];
            std::string lp;
            putTag(lp, 3, kLen);
            putVarint(lp, headers[k].size() + l.eventBytes);
            out.write(lp);
            out.write(headers[k]);
            for (const Chunk &c : l.spilled) {
                chunk.resize(c.size);
                ok = ok && ::pread(m_spillFd, chunk.data(), c.size, off_t(c.offset)) == ssize_t(c.size);
                out.write(chunk.data(), chunk.size());
            }
            out.write(l.buffer.data(), l.buffer.size());
        }
        out.write(tail);
    }
    for (const std::string &h : m_hostnames) {
        std::string field;
        putBytesField(field, 4, h);
        out.write(field);
    }
    out.flush();
    ok = ok && out.ok() && std::fflush(f.get()) == 0;
    f.reset();
    std::error_code ec;
    if (ok)
        std::filesystem::rename(partial, m_path, ec);
    if (!ok || ec) {
        std::filesystem::remove(partial, ec);
        return fileError(m_path, "could not be written (disk full or no permission?)");
    }
    return out.written();
}

} // namespace tracedesk::core
