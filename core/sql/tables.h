#pragma once

// The virtual tables of the SQL schema (README "SQL"), each over a SqlContext that outlives it.
// Internal to core/sql.

#include "core/sql/sqlcontext.h"
#include "core/sql/vtable.h"

#include <memory>
#include <vector>

namespace tracedesk::core::sql {

std::unique_ptr<SqlTable> makeSlicesTable(const SqlContext &context);
std::unique_ptr<SqlTable> makeArgsTable(const SqlContext &context);
std::unique_ptr<SqlTable> makeCountersTable(const SqlContext &context);
std::unique_ptr<SqlTable> makeFlowsTable(const SqlContext &context);
// planes, tracks, steps, kernels, op_stats: small tables filled on first use.
std::vector<std::unique_ptr<SqlTable>> makeListTables(const SqlContext &context);

// Every table, in schema order.
std::vector<std::unique_ptr<SqlTable>> makeAllTables(const SqlContext &context);

} // namespace tracedesk::core::sql
