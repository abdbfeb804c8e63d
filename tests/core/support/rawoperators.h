#pragma once

// The operators of a raw Kineto fixture, counted without the readers under test: their names,
// the GPU time each one's launches ran, and the host ProfilerStep names.

#include "kinetofixtures.h"

#include <QJsonArray>
#include <QJsonObject>

#include <map>
#include <set>
#include <vector>

namespace testsupport {

// What the raw file says, without the readers under test.
struct RawOperators
{
    std::set<QString> operatorNames;    // names of complete `cpu_op` events
    std::map<QString, double> deviceUs; // per operator name, GPU time of its launches
    std::set<QString> stepNames;        // host ProfilerStep#N
};

// GPU time per operator: each kernel / memcpy / memset finds its launch by correlation, and the
// launch its operator by External id (the profiler's own link between a launch and the op that
// issued it). Files whose launches' External ids only repeat their correlation ids name no op
// that way; there the launch belongs to the innermost `cpu_op` around it on its thread (of two
// with the same span, the later in the file: the profiler writes an op before those it holds).
inline RawOperators rawOperators(const QString &path)
{
    RawOperators raw;
    const QJsonArray events = readFixtureObject(path).value("traceEvents").toArray();
    struct Span
    {
        double begin = 0;
        double end = 0;
        QString name;
        qint64 correlation = -1;
    };
    std::map<qint64, QString> opByExternalId;
    std::map<qint64, qint64> externalIdByCorrelation;
    std::map<QString, std::vector<Span>> opsByThread, launchesByThread;
    bool mirrored = true;
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        if (e.value("ph").toString() != "X")
            continue;
        const QString cat = e.value("cat").toString();
        const QJsonObject args = e.value("args").toObject();
        const QString name = e.value("name").toString();
        const QString thread =
            e.value("pid").toVariant().toString() + "/" + e.value("tid").toVariant().toString();
        const Span span{e.value("ts").toDouble(),
                        e.value("ts").toDouble() + e.value("dur").toDouble(), name,
                        args.value("correlation").toInteger(-1)};
        if (name.startsWith("ProfilerStep#") && !cat.startsWith("gpu_"))
            raw.stepNames.insert(name);
        if (cat == "cpu_op") {
            if (!name.startsWith("ProfilerStep#")) {
                raw.operatorNames.insert(name);
                opsByThread[thread].push_back(span);
            }
            if (args.contains("External id"))
                opByExternalId.emplace(args.value("External id").toInteger(), name);
        } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
            launchesByThread[thread].push_back(span);
            if (args.contains("correlation") && args.contains("External id")) {
                const qint64 ext = args.value("External id").toInteger();
                externalIdByCorrelation[span.correlation] = ext;
                mirrored &= ext == span.correlation;
            }
        }
    }
    std::map<qint64, QString> opByCorrelation;
    for (auto &[thread, launches] : launchesByThread) {
        for (const Span &l : launches) {
            if (!mirrored) {
                auto ext = externalIdByCorrelation.find(l.correlation);
                auto op = ext == externalIdByCorrelation.end() ? opByExternalId.end()
                                                               : opByExternalId.find(ext->second);
                if (op != opByExternalId.end())
                    opByCorrelation[l.correlation] = op->second;
                continue;
            }
            const Span *inner = nullptr;
            for (const Span &op : opsByThread[thread]) {
                if (op.begin <= l.begin && op.end >= l.end &&
                    (!inner || op.begin > inner->begin ||
                     (op.begin == inner->begin && op.end <= inner->end)))
                    inner = &op;
            }
            if (inner)
                opByCorrelation[l.correlation] = inner->name;
        }
    }
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        const QString cat = e.value("cat").toString();
        if (e.value("ph").toString() != "X" ||
            (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset"))
            continue;
        auto op = opByCorrelation.find(e.value("args").toObject().value("correlation").toInteger());
        if (op != opByCorrelation.end())
            raw.deviceUs[op->second] += e.value("dur").toDouble();
    }
    return raw;
}

} // namespace testsupport
