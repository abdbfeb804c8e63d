#pragma once

// Helpers shared by the capture tests: fixture XSpaces in a temp dir, file comparison, and a
// listing of what a logdir holds.

#include "core/capture/capturesession.h"
#include "core/generate/generator.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QString>
#include <QStringList>

#include <string>
#include <thread>
#include <utility>

namespace capturetest {

// A small deterministic XSpace; returns its path (empty on failure) and the event count.
inline QString writeSmallXSpace(const QString &dir, uint64_t *events = nullptr)
{
    const QString path = dir + "/recorded.xplane.pb";
    tracedesk::core::GeneratorOptions options;
    options.events = 3000;
    auto stats = tracedesk::core::generateTrace(options, path.toStdString());
    if (!stats.ok())
        return {};
    if (events)
        *events = stats.value().events;
    return path;
}

inline QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every regular file below `dir` (hidden ones included), relative to it, sorted.
inline QStringList filesUnder(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

inline QString q(const std::string &s) { return QString::fromStdString(s); }

// Runs a session on a thread so the test can act while it is in progress.
struct Background
{
    tracedesk::core::capture::CaptureSession session;
    tracedesk::core::capture::CaptureResult result;
    std::thread thread;
    explicit Background(tracedesk::core::capture::CaptureOptions o) : session(std::move(o))
    {
        thread = std::thread([this] { result = session.run(); });
    }
    tracedesk::core::capture::CaptureResult finish()
    {
        thread.join();
        return result;
    }
};

} // namespace capturetest
