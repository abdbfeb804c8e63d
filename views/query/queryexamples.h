#pragma once

// The saved example queries of the Query dock: a title and the SQL (schema: README "SQL").

#include <QString>

#include <vector>

namespace tracedesk::views {

struct QueryExample
{
    QString title;
    QString sql;
};

const std::vector<QueryExample> &queryExamples();

} // namespace tracedesk::views
