#pragma once

// CompareWorkspace: two traces, A (baseline) over B (candidate), on one aligned time axis.
//
// Two TimelineWidgets share a time axis through a TraceAlignment: step N of A and step N of B
// sit at the same x (step selector; default the first complete step of each, trace begins when
// a trace has no steps). With Lock on (the default) a window change of either timeline maps to
// the other through the alignment offset. Selecting a slice selects the nearest same-name slice
// in the other trace and filters the op diff to its op; selecting an op row selects an
// occurrence of it in both timelines and shows its per-occurrence durations. Below: the op diff
// table (level selector, filter, Export CSV), a plain-words summary with the overview figures
// side by side, the step-time chart and the duration histogram.
//
// Analyses run on workers through each trace's AnalysisCache (shared with panels when the caller
// passes the caches); nothing walks the traces on the GUI thread except the slice match on a
// click, which searches outwards from the click time.

#include "core/analysis/analysiscache.h"
#include "core/compare/tracecomparison.h"
#include "views/timeline/backgroundjob.h"

#include <QWidget>

#include <array>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTextBrowser;
class QTabWidget;

namespace tracedesk::views {

class DurationHistogram;
class FlameGraphPanel;
class OpDiffModel;
class OpDiffProxy;
class OperatorDiffModel;
class StepCompareChart;
class TimelineState;
class TimelineWidget;

class CompareWorkspace : public QWidget
{
    Q_OBJECT

public:
    enum Side { SideA = 0, SideB = 1 };
    Q_ENUM(Side)

    explicit CompareWorkspace(QWidget *parent = nullptr);
    ~CompareWorkspace() override;

    void setTraces(core::TracePtr a, QString nameA, core::TracePtr b, QString nameB);
    // The same with caches the caller already holds (analyses are then shared with panels).
    void setAnalyses(core::analysis::AnalysisCachePtr a, QString nameA,
                     core::analysis::AnalysisCachePtr b, QString nameB);
    void swap();
    void clear();

    TimelineWidget *timeline(Side side) const { return m_timelines[side]; }
    TimelineState *state(Side side) const;
    core::TracePtr trace(Side side) const;
    QString name(Side side) const { return m_names[side]; }

    // Null until the comparison has been computed.
    const core::compare::TraceComparison *comparison() const { return m_comparison.get(); }
    bool isComputing() const { return m_computing; }
    const core::compare::TraceAlignment &alignment() const { return m_alignment; }

    bool zoomLocked() const;
    void setZoomLocked(bool locked);
    // Aligns step pair N (0 = first complete step of each).
    void setAlignStep(int pair);
    core::compare::OpLevel level() const { return m_level; }
    void setLevel(core::compare::OpLevel level);
    void setFilterText(const QString &text);

    OpDiffModel *opDiffModel() const { return m_model; }
    OpDiffProxy *opDiffProxy() const { return m_proxy; }
    QTableView *opDiffView() const { return m_table; }
    // PyTorch traces: the operators matched across the two (empty for other traces).
    OperatorDiffModel *operatorModel() const { return m_operatorModel; }
    QTableView *operatorView() const { return m_operatorTable; }
    QLabel *operatorMatchLabel() const { return m_operatorMatch; }
    QComboBox *stepSelector() const { return m_stepBox; }
    // Heights of the two timeline panes (for the layout checks).
    QList<int> timelineHeights() const;
    StepCompareChart *stepChart() const { return m_stepChart; }
    DurationHistogram *histogram() const { return m_histogram; }
    // The differential flame graph (A vs B), computed when its tab is first shown.
    FlameGraphPanel *flameDiff() const { return m_flameDiff; }
    QString summaryText() const;

    // Selects an occurrence of the op in both timelines (nearest to each view's centre) and
    // shows its durations; `where` narrows framework ops to Device or Host.
    void highlightOp(const QString &name, const QString &where = {});
    // The same for an operator pair of two PyTorch traces, named on each side (a call-path
    // match names them differently): host occurrences of each selected in its timeline.
    void highlightOperator(const QString &nameA, const QString &nameB);
    QString highlightedOp() const { return m_highlighted; }

signals:
    void closeRequested(tracedesk::views::CompareWorkspace::Side side);
    void comparisonReady();
    void opHighlighted(const QString &name);

private:
    struct Result
    {
        std::shared_ptr<const core::compare::TraceComparison> comparison;
        std::shared_ptr<const core::analysis::StepDb> stepsA;
        std::shared_ptr<const core::analysis::StepDb> stepsB;
    };
    struct Occurrences
    {
        QString name;
        std::vector<core::SliceRef> a;
        std::vector<core::SliceRef> b;
        bool select = false;       // select an occurrence in both timelines
    };

    void buildUi();
    QWidget *buildTimelineHeader(Side side);
    void startComparison();
    void applyResult(Result result);
    void applyAlignment(bool resetWindows);
    void fillStepSelector();
    void showLevel();
    void updateSummary();
    void updateHeaders();
    void syncWindowFrom(Side side);
    void syncSelectionFrom(Side side);
    void onRowActivated();
    void onOperatorRowActivated();
    void findOccurrences(const QString &name, const std::string &opA, const std::string &opB,
                         core::compare::OpLevel level, const std::string &where);
    void applyOccurrences(Occurrences occurrences);
    void exportCsv();
    void refreshFlameDiff();
    void showOperators();
    void buildOperatorPane(QTabWidget *tabs);
    void applyDefaultSizes();
    void showEvent(QShowEvent *event) override;

    std::array<core::analysis::AnalysisCachePtr, 2> m_caches;
    std::array<QString, 2> m_names;
    std::array<TimelineWidget *, 2> m_timelines{};
    std::array<QWidget *, 2> m_panes{};
    std::array<QLabel *, 2> m_headers{};
    std::shared_ptr<const core::compare::TraceComparison> m_comparison;
    std::shared_ptr<const core::analysis::StepDb> m_steps[2];
    core::compare::TraceAlignment m_alignment;
    core::compare::OpLevel m_level = core::compare::OpLevel::Framework;
    QString m_highlighted;
    bool m_computing = false;
    bool m_syncing = false;

    QSplitter *m_timelineSplit = nullptr;
    QSplitter *m_mainSplit = nullptr;
    bool m_sized = false;
    QTabWidget *m_diffTabs = nullptr;
    QWidget *m_operatorPane = nullptr;
    QComboBox *m_groupingBox = nullptr;
    QLineEdit *m_operatorFilter = nullptr;
    QLabel *m_operatorMatch = nullptr;
    QTableView *m_operatorTable = nullptr;
    QSortFilterProxyModel *m_operatorProxy = nullptr;
    OperatorDiffModel *m_operatorModel = nullptr;
    QComboBox *m_stepBox = nullptr;
    QCheckBox *m_lock = nullptr;
    QComboBox *m_levelBox = nullptr;
    QLineEdit *m_filter = nullptr;
    QTableView *m_table = nullptr;
    OpDiffModel *m_model = nullptr;
    OpDiffProxy *m_proxy = nullptr;
    QTextBrowser *m_summary = nullptr;
    StepCompareChart *m_stepChart = nullptr;
    DurationHistogram *m_histogram = nullptr;
    QCheckBox *m_logAxes = nullptr;
    QTabWidget *m_tabs = nullptr;
    FlameGraphPanel *m_flameDiff = nullptr;
    bool m_flameDiffStale = true;
    QLabel *m_status = nullptr;
    BackgroundJob m_job;
    BackgroundJob m_occurrenceJob;
};

} // namespace tracedesk::views
