// MainWindow: a distributed run opened from its ranks' summary files (distributed --map), with
// no trace until the user picks ranks.

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"

#include "core/analysis/distributed/runview.h"
#include "core/analysis/distributed/summaryreduce.h"

#include <QStatusBar>

namespace tracedesk::app {

namespace {

struct OpenedSummaries
{
    QString error;
    std::shared_ptr<const core::analysis::distributed::DistributedSummary> run;
    QStringList traceFiles;
    std::string runKey;
};

} // namespace

void MainWindow::openSummaryFolder(const QString &dir, const QList<qint64> &ranks)
{
    const core::LoadOptions options = m_loads->options();
    statusBar()->showMessage(tr("Reading the rank summaries in %1…").arg(dir));
    // Reading a thousand summaries and their traces' identities (the run's key) takes a
    // moment: on a worker.
    m_summaryJob.run<std::shared_ptr<const OpenedSummaries>>(
        this,
        [dir = dir.toStdString(), options] {
            auto out = std::make_shared<OpenedSummaries>();
            auto opened = core::analysis::distributed::openSummaryRun(dir, options.alignStep);
            if (!opened) {
                out->error = QString::fromStdString(opened.message());
                return std::shared_ptr<const OpenedSummaries>(out);
            }
            for (const std::string &f : opened.value().traceFiles)
                out->traceFiles << QString::fromStdString(f);
            out->runKey =
                core::analysis::distributed::runSummaryKey(opened.value().traceFiles, options);
            out->run = std::make_shared<const core::analysis::distributed::DistributedSummary>(
                std::move(opened.value().run));
            return std::shared_ptr<const OpenedSummaries>(out);
        },
        [this, dir, ranks](std::shared_ptr<const OpenedSummaries> opened) {
            statusBar()->clearMessage();
            if (!opened->error.isEmpty()) {
                showError(opened->error);
                return;
            }
            // The traces, joined as several dropped files are: what the rank picker reopens.
            m_openedPath = opened->traceFiles.join(QLatin1Char('\n'));
            m_analysis->showSummaryRun(opened->runKey, opened->run);
            statusBar()->showMessage(
                tr("%1 ranks from their summaries in %2; Ranks on Timeline… in the Distributed "
                   "panel loads their traces")
                    .arg(opened->run->ranks.size())
                    .arg(dir),
                30000);
            if (!ranks.isEmpty())
                reopenWithRanks(ranks);
        });
}

} // namespace tracedesk::app
