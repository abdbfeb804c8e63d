#pragma once

// XSpaceWriter: streams one XSpace (`<host>.xplane.pb`, FORMATS.md 1.1) to a file by encoding
// the protobuf wire format directly, without building message objects, so traces of tens of
// millions of events are written in bounded memory.
//
// Protobuf needs each message's length before its body, and a plane's lines are only complete
// at the end. Each line therefore collects its encoded events in a buffer that spills, in
// chunks, to an anonymous temporary file next to the output; finish() then knows every size,
// writes planes, lines and metadata in one pass and renames the finished file into place.
// Metadata ids are handed out from 1 per plane in order of first use. Single-threaded.

#include "core/base/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tracedesk::core {

// The XStat records of one event, event metadata or plane.
class XStatList
{
public:
    void addInt(int64_t statId, int64_t value);
    void addUInt(int64_t statId, uint64_t value);
    void addDouble(int64_t statId, double value);
    void addString(int64_t statId, std::string_view value);
    void addRef(int64_t statId, int64_t refStatId);
    void clear();
    bool empty() const { return m_ends.empty(); }

    // Encoded XStat bodies, each as (length varint + body); m_ends marks where each ends.
    const std::string &bytes() const { return m_bytes; }
    const std::vector<uint32_t> &ends() const { return m_ends; }

private:
    void finishStat(const std::string &body);
    std::string m_bytes;
    std::string m_scratch;
    std::vector<uint32_t> m_ends;
};

class XSpaceWriter
{
public:
    explicit XSpaceWriter(std::string path);
    ~XSpaceWriter();
    XSpaceWriter(const XSpaceWriter &) = delete;
    XSpaceWriter &operator=(const XSpaceWriter &) = delete;

    // Creates the spill file; must succeed before anything else is added.
    Result<bool> open();

    uint32_t addPlane(int64_t id, std::string_view name);
    int64_t eventMetadata(uint32_t plane, std::string_view name);
    void setEventMetadataStats(uint32_t plane, int64_t metadataId, const XStatList &stats);
    int64_t statMetadata(uint32_t plane, std::string_view name);
    void setPlaneStats(uint32_t plane, const XStatList &stats);
    uint32_t addLine(uint32_t plane, int64_t id, std::string_view name, int64_t timestampNs);
    void addEvent(uint32_t line, int64_t metadataId, int64_t offsetPs, int64_t durationPs,
                  const XStatList *stats = nullptr);
    void addHostname(std::string_view host) { m_hostnames.emplace_back(host); }

    // Writes the file; returns its size in bytes.
    Result<uint64_t> finish();

private:
    struct Metadata
    {
        std::string name;
        std::string stats;            // encoded stat fields (tag 5 + stat)
    };
    struct Plane
    {
        int64_t id = 0;
        std::string name;
        std::vector<Metadata> events;  // id = index + 1
        std::vector<std::string> statNames;
        std::unordered_map<std::string, int64_t> eventIds;
        std::unordered_map<std::string, int64_t> statIds;
        std::string stats;             // encoded stat fields (tag 6 + stat)
        std::vector<uint32_t> lines;
    };
    struct Chunk
    {
        uint64_t offset;
        uint64_t size;
    };
    struct Line
    {
        int64_t id = 0;
        std::string name;
        int64_t timestampNs = 0;
        int64_t maxEndPs = 0;
        std::vector<uint8_t> buffer;
        std::vector<Chunk> spilled;
        uint64_t eventBytes = 0;
    };

    bool spill(Line &line);
    std::string lineHeader(const Line &line) const;
    std::string planeTail(const Plane &plane) const;

    std::string m_path;
    std::string m_spillPath;
    int m_spillFd = -1;
    uint64_t m_spillEnd = 0;
    bool m_failed = false;
    std::vector<Plane> m_planes;
    std::vector<Line> m_lines;
    std::vector<std::string> m_hostnames;
    std::string m_event;
};

} // namespace tracedesk::core
