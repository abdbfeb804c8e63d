#pragma once

// KernelClasses: the class (kernelclass.h) of each kernel name of one trace, worked out the first
// time a name is asked for. Classifying reads the whole name against every rule, and a trace
// has millions of kernel launches but a few hundred distinct names: analyses that walk the
// launches ask here instead of classifying each one.
//
// Not thread-safe: one instance per analysis run. The trace must outlive it.

#include "core/analysis/kernels/kernelclass.h"
#include "core/model/trace.h"

#include <unordered_map>

namespace tracedesk::core::analysis {

class KernelClasses
{
public:
    explicit KernelClasses(const Trace &trace)
        : m_trace(trace)
    {}

    const KernelClass &of(StringId name)
    {
        auto [it, inserted] = m_classes.try_emplace(name);
        if (inserted)
            it->second = classifyKernel(m_trace.string(name));
        return it->second;
    }
    const KernelClass &of(SliceRef kernel) { return of(m_trace.kind(kernel).name); }

private:
    const Trace &m_trace;
    std::unordered_map<StringId, KernelClass> m_classes;
};

} // namespace tracedesk::core::analysis
