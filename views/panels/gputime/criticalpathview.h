#pragma once

// CriticalPathView: the critical path of one step of a PyTorch trace (core/analysis/gputime/
// criticalpath.h) inside the GPU Time panel. A window chooser (the whole trace, each
// ProfilerStep#N, or the range the timeline shows), each event's time on the path, the path's
// length and its CPU / GPU / launch / wait shares, its segments in path order (a click shows the
// event on the timeline), "Show on the timeline" (the path's events outlined and its hops between
// tracks drawn as arrows), and what-if: an operator or kernel name and a speed-up, the path
// searched again on a worker and the new length shown beside the old. GUI thread only; the graph
// and the searches are built on workers.

#include "core/analysis/analysiscache.h"
#include "core/analysis/gputime/criticalpath.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableView;

namespace tracedesk::views {

class AnalysisTableModel;
class TimelineState;

class CriticalPathView : public QWidget
{
    Q_OBJECT

public:
    explicit CriticalPathView(QWidget *parent = nullptr);
    ~CriticalPathView() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state) { m_state = state; }
    bool isComputing() const { return m_compute.busy() || m_whatIf.busy(); }

    QString summaryText() const;
    QString whatIfText() const;
    QComboBox *windowBox() const { return m_window; }
    QComboBox *speedUpName() const { return m_name; }
    QDoubleSpinBox *speedUpFactor() const { return m_factor; }
    QPushButton *whatIfButton() const { return m_run; }
    QPushButton *showButton() const { return m_show; }
    AnalysisTableModel *segmentModel() const { return m_segments; }
    AnalysisTableModel *byEventModel() const { return m_byEvent; }
    QTableView *segmentView() const { return m_view; }
    // The path on screen (nullptr before the first result).
    const core::analysis::gputime::CriticalPath *path() const;

signals:
    void computed();
    void whatIfComputed();
    void sliceActivated(tracedesk::core::SliceRef slice);
    // The timeline should scroll the slice's row into view, keeping its time window.
    void scrollRequested(tracedesk::core::SliceRef slice);

private:
    struct Result
    {
        std::vector<core::analysis::gputime::TimeWindow> steps; // ProfilerStep#N, by start
        int choice = 0;                                         // 0: whole trace, k: steps[k-1]
        std::shared_ptr<const core::analysis::gputime::CriticalPathGraph> graph;
        core::analysis::gputime::CriticalPath path;
    };
    using ResultPtr = std::shared_ptr<const Result>;
    using PathPtr = std::shared_ptr<const core::analysis::gputime::CriticalPath>;

    void compute(int choice); // -1: the first step, else the whole trace; index of m_window
    void showResult(ResultPtr result);
    void showWhatIf(PathPtr path);
    void runWhatIf();
    void showOnTimeline();

    core::analysis::AnalysisCachePtr m_cache;
    ResultPtr m_result;
    TimelineState *m_state = nullptr;
    QComboBox *m_window = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_show = nullptr;
    AnalysisTableModel *m_segments = nullptr;
    AnalysisTableModel *m_byEvent = nullptr; // each name's time on the path, the most first
    QTableView *m_view = nullptr;
    QComboBox *m_name = nullptr;
    QDoubleSpinBox *m_factor = nullptr;
    QPushButton *m_run = nullptr;
    QLabel *m_whatIfLabel = nullptr;
    PanelCompute<ResultPtr> m_compute{this, &CriticalPathView::showResult};
    PanelCompute<PathPtr> m_whatIf{this, &CriticalPathView::showWhatIf};
};

} // namespace tracedesk::views
