#pragma once

// FlameGraphPanel: the flame graph of the whole trace, of the timeline's area selection, of the
// selected slice's track, or of every instance of the selected slice's name (Scope), by wall
// time (top-down) or self time (bottom-up: callers below each frame). A search box highlights
// matching frames, a breadcrumb of the zoomed frame's stack leads back (so do Esc and
// Backspace), and the clicked frame's callers and callees are listed beside the graph. From
// two traces it shows the differential graph (A vs B). Graphs are built on a worker; a stale
// result is dropped.

#include "core/analysis/analysiscache.h"
#include "core/query/flamegraph.h"
#include "views/timeline/backgroundjob.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace tracedesk::views {

class FlameGraphWidget;
struct FlameTree;
class TimelineState;

class FlameGraphPanel : public QWidget
{
    Q_OBJECT

public:
    enum class Scope { WholeTrace, Area, Track, Name };
    // GpuTime (PyTorch traces): the operator tree weighted by the GPU time each operator
    // launched (core/analysis/pytorch/deviceflamegraph.h), whole trace.
    enum class Metric { Wall, Self, GpuTime };

    explicit FlameGraphPanel(QWidget *parent = nullptr);
    ~FlameGraphPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state);

    // Scope::Track and Scope::Name follow the timeline's selected slice.
    void setScope(Scope scope);
    Scope scope() const;
    void setMetric(Metric metric);
    // The differential graph of two traces (their whole time); setAnalyses() ends it.
    void showDifferential(core::TracePtr a, core::TracePtr b);

    FlameGraphWidget *graphWidget() const { return m_graph; }
    QLineEdit *searchBox() const { return m_search; }
    QTreeWidget *callersTable() const { return m_callers; }
    QTreeWidget *calleesTable() const { return m_callees; }
    QString breadcrumbText() const;
    QString statusText() const;
    bool isComputing() const { return m_computing; }

signals:
    void computed();

private:
    void recomputeGpuTime();
    void recompute();
    void deliver(std::shared_ptr<const core::FlameGraph> topDown,
                 std::shared_ptr<const FlameTree> tree, const QString &what);
    void showCalls(uint32_t node);
    void updateBreadcrumb();
    void updateSearchLabel();

    core::analysis::AnalysisCachePtr m_cache;
    QPointer<TimelineState> m_state;
    BackgroundJob m_job;
    bool m_computing = false;
    std::shared_ptr<const core::FlameGraph> m_topDown; // an inverted tree's callers / callees

    QComboBox *m_scope = nullptr;
    QComboBox *m_metric = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_matches = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_breadcrumb = nullptr;
    FlameGraphWidget *m_graph = nullptr;
    QLabel *m_frameTitle = nullptr;
    QTreeWidget *m_callers = nullptr;
    QTreeWidget *m_callees = nullptr;
};

} // namespace tracedesk::views
