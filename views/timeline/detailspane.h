#pragma once

// DetailsPane: what the timeline selection is. For one slice: name, track, plane and host,
// start (from the trace start), duration, self time, every arg and the flows in and out. For an
// area: a sortable per-name table (occurrences, wall, self, average, min, max), computed on a
// worker, with Copy as CSV. It observes a TimelineState; it never changes it. Its buttons ask
// for the flame graph or pivot of what is selected (analysisRequested); the app shows them.

#include "core/model/trace.h"
#include "core/query/selectionsummary.h"
#include "views/timeline/backgroundjob.h"

#include <QPointer>
#include <QWidget>

class QAbstractItemModel;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;
class QTextEdit;

namespace tracedesk::views {

class SummaryTableModel;
class TimelineState;

// What the Details pane's buttons ask the app to show for the current selection.
enum class SelectionAnalysis : uint8_t {
    AreaFlameGraph,
    AreaPivot,
    TrackFlameGraph,
    NameFlameGraph,
};

class DetailsPane : public QWidget
{
    Q_OBJECT

public:
    explicit DetailsPane(QWidget *parent = nullptr);
    ~DetailsPane() override;

    void setTrace(core::TracePtr trace);
    void setState(TimelineState *state);

    // The slice page as plain text, the area heading, the table (sorted view) and its CSV.
    QString sliceText() const;
    QString areaText() const;
    QTableView *table() const { return m_table; }
    QAbstractItemModel *tableModel() const;
    QString csv() const;
    bool summaryPending() const { return m_pending; }
    // The width the area summary reads whole at: every number column and a readable name.
    int areaSummaryWidth() const;

public slots:
    void refresh();
    void copyCsv();

signals:
    void summaryReady();
    void analysisRequested(tracedesk::views::SelectionAnalysis what);
    // "Show in Graph Viewer" on an XLA op's slice: its HLO op and program (empty if unknown).
    void graphRequested(const QString &op, const QString &programId);

private:
    void showSlice(core::SliceRef slice);
    void showArea();
    void showOccurrences();

    core::TracePtr m_trace;
    QPointer<TimelineState> m_state;
    QStackedWidget *m_pages = nullptr;
    QLabel *m_empty = nullptr;
    QTextEdit *m_slice = nullptr;
    QPushButton *m_nameFlame = nullptr;
    QPushButton *m_graph = nullptr;
    QString m_graphOp;
    QString m_graphProgram;
    QLabel *m_areaLabel = nullptr;
    QTableView *m_table = nullptr;
    SummaryTableModel *m_model = nullptr;
    bool m_pending = false;
    BackgroundJob m_job;
};

} // namespace tracedesk::views
