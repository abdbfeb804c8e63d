#pragma once

// AnalysisDocks: the analysis panels (overview, input pipeline, op profile, framework op stats,
// kernel stats, HLO op stats, roofline model, memory profile, memory viewer, pod viewer, tf.data
// bottleneck, distributed), each in a dock of the main window, fed from one AnalysisCache per
// shown trace and linked to the timeline: activating an op in a panel outlines its occurrences on
// the timeline and lists them in the details pane; a point in time (a step, a memory event) brings
// that time into view and marks it; a worker in the pod viewer (a rank in the distributed panel)
// opens that host's sections; a collective or step of a run is shown with every rank's instance
// outlined. The Distributed panel learns where the shown trace came from (setRunSource), so a
// trace holding part of a run still gets the summary of every rank, and asks for other ranks
// (ranksRequested).

#include "core/analysis/analysiscache.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QDockWidget;
class QMainWindow;
class QMenu;
class QTabBar;
class QWidget;

namespace tracedesk::core::analysis::distributed {
class RunSummaryMemo;
struct DistributedSummary;
}

namespace tracedesk::views {
enum class SelectionAnalysis : uint8_t;
class GraphViewerPanel;
class PyTorchOpLinker;
class PyTorchRankChoice;
class TimelineWidget;
}

namespace tracedesk::app {

class AnalysisDocks : public QObject
{
    Q_OBJECT

public:
    AnalysisDocks(QMainWindow *window, views::TimelineWidget *timeline);

    // A new cache for the trace (nullptr clears every panel). Visible panels compute at once, on
    // workers; a panel behind another tab when it is first shown.
    void setTrace(core::TracePtr trace);
    // What the next trace was opened from and with which options (before setTrace); empty
    // paths: the trace alone.
    void setRunSource(const QStringList &paths, const core::LoadOptions &options);
    // A run summarised from its summary files, with no trace yet: the Distributed panel shows
    // it (its dock raised), and keeps it under `runKey` (runview.h's runSummaryKey of its
    // traces), so a later load of some of its ranks does not summarise every rank again.
    void showSummaryRun(const std::string &runKey,
                        std::shared_ptr<const core::analysis::distributed::DistributedSummary> run);
    void addToggleActions(QMenu *menu) const;

    const std::vector<QDockWidget *> &docks() const { return m_docks; }
    // The panel widget of the dock whose object name is `dockName`, or nullptr.
    QWidget *panel(const QString &dockName) const;
    const core::analysis::AnalysisCachePtr &cache() const { return m_cache; }
    // The tab bar of the panels' own tab group (where they start), nullptr when there is none.
    QTabBar *panelTabBar() const;
    // True while a panel that is on screen is still computing (e.g. a screenshot waits).
    bool visiblePanelComputing() const;
    // Why the dock's tool does not apply to the shown profile; empty when it does.
    QString notApplicableReason(const QDockWidget *dock) const;

    // What a panel's activation does, also for tests.
    void showOp(const QString &name);
    void showTime(core::TimePs t);
    // Opens that host's sections on the timeline and closes the others.
    void showHost(const QString &host);
    // Raises the flame graph or pivot dock and points it at the timeline's selection.
    void showSelectionAnalysis(views::SelectionAnalysis what);
    // Opens the Graph Viewer on `op` of program `programId` (empty: any program holding it).
    void showGraph(const QString &op, const QString &programId);
    // Shows the dock whose object name is `dockName` and brings it to the front of its tabs.
    void raiseDock(const QString &dockName);
    // Shows [start, end) and outlines `refs` (e.g. one collective on every rank).
    void showRange(core::TimePs start, core::TimePs end, const QString &label,
                   std::shared_ptr<const std::vector<core::SliceRef>> refs);

signals:
    // The Distributed panel asks for the run reopened with its ranks aligned at `step`.
    void alignRequested(const QString &step);
    // The Distributed panel asks for the run reopened with these ranks on the timeline.
    void ranksRequested(const QList<qint64> &ranks);

private:
    template<typename Panel>
    Panel *addPanel(const QString &objectName, const QString &title);

    QMainWindow *m_window;
    views::TimelineWidget *m_timeline;
    core::analysis::AnalysisCachePtr m_cache;
    std::vector<QDockWidget *> m_docks;
    // A panel, and the cache it was last handed (it computes once it has one).
    struct PanelSlot
    {
        QDockWidget *dock;
        std::function<void(const core::analysis::AnalysisCachePtr &)> setAnalyses;
        std::function<bool()> computing;
        // Why the panel has nothing for a trace; empty when it applies.
        std::function<QString(const core::Trace &)> reason;
        QString notApplicable; // reason() of the current trace
        core::analysis::AnalysisCachePtr given;
    };
    // Hands the panel the current cache if it is on screen; `shown`: the dock just said so.
    void deliver(PanelSlot &slot, bool shown = false);
    // Tools that apply to the shown profile first in the panels' tab group (as XProf lists
    // them), the rest after them, greyed, with the reason in the tab's tooltip.
    void arrangeTabs();
    void applyTabHints();

    std::vector<PanelSlot> m_panels;
    bool m_arranging = false; // arrangeTabs() is moving docks: no panel is fed meanwhile
    // Finds a PyTorch operator's CPU slices and the GPU work it launched, off the GUI thread.
    views::PyTorchOpLinker *m_pytorchOps = nullptr;
    // The last run the Distributed panel summarised rank by rank (shared with its worker).
    std::shared_ptr<core::analysis::distributed::RunSummaryMemo> m_runMemo;
    // The rank of a merged run every panel's PyTorch page shows (one pick for all of them).
    views::PyTorchRankChoice *m_pytorchRank = nullptr;
    views::GraphViewerPanel *m_graph = nullptr;
};

} // namespace tracedesk::app
