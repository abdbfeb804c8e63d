#pragma once

// Reading a rocpd or RPD database row by row: a cancel check every few thousand rows, and a
// query that failed part way (a damaged page) as the file's error, never a shorter profile.
// Internal to the rocprof readers; one per load, on the loading thread.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/nsys/nsysdatabase.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core::rocprof {

class RocpdRows
{
public:
    RocpdRows(const nsys::NsysDatabase &db, LoadControl &control) : m_db(db), m_control(control)
    {}

    // After each row: cancelled once the load is asked to stop.
    Result<bool> tick()
    {
        if (++m_rows % kTickRows == 0 && m_control.cancelRequested())
            return Result<bool>::cancelled();
        return true;
    }
    // After the last row of table `table`.
    Result<bool> finish(const nsys::NsysQuery &q, std::string_view table) const
    {
        if (q.failed())
            return m_db.sqliteError("cannot be read: table " + std::string(table));
        return true;
    }

private:
    static constexpr uint64_t kTickRows = 4096;

    const nsys::NsysDatabase &m_db;
    LoadControl &m_control;
    uint64_t m_rows = 0;
};

} // namespace tracedesk::core::rocprof
