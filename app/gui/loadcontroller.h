#pragma once

// LoadController: opens profiles on a worker thread and hands the result to the GUI thread.
// The store cache of a trace read from its sources is written by the same worker after the
// trace is handed over, so the timeline never waits for it; the destructor stops such writes
// (a stopped write leaves no cache file, and the next opening reads the sources again).
//
// Each start() gets a new generation number and its own LoadControl. Starting again or calling
// cancel() cancels the running load and bumps the generation, so whatever the superseded worker
// returns later is dropped: at most one of loaded / failed / cancelled is emitted per start(),
// always on the GUI thread (a superseded load emits nothing). Progress is polled from the
// LoadControl with a timer. The destructor cancels every worker and joins it.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/io/traceloader.h"
#include "core/model/trace.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace tracedesk::app {

// What a worker hands back: the trace and the name to show for it (file, run or folder name).
struct LoadedTrace
{
    core::TracePtr trace;
    QString displayName;
    // Run by the worker once the trace is delivered (core::loadResolved); may be empty.
    core::DeferredCacheWrite cacheWrite;
};

class LoadController : public QObject
{
    Q_OBJECT

public:
    using Loader = std::function<core::Result<LoadedTrace>(
        const std::string &path, core::LoadControl *control, const core::LoadOptions &options)>;

    explicit LoadController(QObject *parent = nullptr);
    ~LoadController() override;

    // The default resolves the path and runs core::loadResolved; tests install their own.
    void setLoader(Loader loader) { m_loader = std::move(loader); }
    void setOptions(const core::LoadOptions &options) { m_options = options; }
    const core::LoadOptions &options() const { return m_options; }

    void start(const QString &path);
    // Several files opened together as one run (PyTorch ranks, XSpace hosts): the loader gets
    // them as one newline-separated path.
    void startFiles(const QStringList &paths) { start(paths.join(QLatin1Char('\n'))); }
    void cancel();

    bool isLoading() const { return m_current != nullptr; }
    QString currentPath() const { return m_currentPath; }
    quint64 generation() const { return m_generation; }
    // Workers that have not handed back their result yet (superseded ones included).
    int runningWorkers() const { return int(m_jobs.size()); }
    // 0..1 of the running load, or 0 when idle or the total is not known yet.
    double progress() const;

signals:
    void started(const QString &path);
    void progressChanged(double fraction, quint64 doneBytes, quint64 totalBytes);
    void loaded(tracedesk::core::TracePtr trace, const QString &displayName, const QString &path);
    void failed(const QString &message, const QString &path);
    void cancelled(const QString &path);

private:
    struct Job
    {
        quint64 generation = 0;
        std::shared_ptr<core::LoadControl> control;
        std::thread thread;
    };

    void deliver(quint64 generation, core::Result<LoadedTrace> result);
    void reapJob(quint64 generation);
    void pollProgress();

    Loader m_loader;
    core::LoadOptions m_options;
    QTimer m_progressTimer;
    quint64 m_generation = 0;
    std::shared_ptr<core::LoadControl> m_current;
    QString m_currentPath;
    std::vector<Job> m_jobs;
    // Set by the destructor: cache writes still running stop at their next window.
    std::shared_ptr<std::atomic<bool>> m_stopCacheWrites = std::make_shared<std::atomic<bool>>();
};

} // namespace tracedesk::app

Q_DECLARE_METATYPE(tracedesk::core::TracePtr)
