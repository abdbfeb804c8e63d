#pragma once

// QueryPanel: the Query dock. SQL over the shown trace (core/sql, schema in the README): an
// editor with history (Ctrl+Up / Ctrl+Down, or the history list), saved examples, Run
// (Ctrl+Enter) and Cancel, a sortable results table with CSV export, and SQLite's own message
// when a statement fails. Clicking a row whose result has a `slice_id` (else `id`) column
// emits sliceActivated() for that slice, which the window wires to the timeline.
//
// Queries run on a worker (BackgroundJob), each in its own SqlSession (one session per
// thread) sharing the panel's AnalysisCache; a new run or a new trace cancels the running one
// and its late result is dropped. At most kRowLimit rows are kept. GUI thread only.

#include "core/analysis/analysiscache.h"
#include "core/sql/sliceids.h"
#include "views/timeline/backgroundjob.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tracedesk::views {

class QueryResultModel;

class QueryPanel : public QWidget
{
    Q_OBJECT

public:
    static constexpr size_t kRowLimit = 100000;

    explicit QueryPanel(QWidget *parent = nullptr);
    ~QueryPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    // Runs the editor's text (what Run and Ctrl+Enter do).
    void runQuery();
    void cancelQuery();
    bool isRunning() const { return m_job.active() && m_running; }
    // Writes the current result as CSV; false (with the reason in the status line) on failure.
    bool exportCsv(const QString &path);

    QPlainTextEdit *editor() const { return m_editor; }
    QTableView *resultView() const { return m_table; }
    QueryResultModel *resultModel() const { return m_model; }
    QString statusText() const;
    const QStringList &history() const { return m_history; }

signals:
    void sliceActivated(tracedesk::core::SliceRef slice);
    // A run ended: rows shown, an error shown, or cancelled.
    void queryFinished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void addToHistory(const QString &sql);
    void stepHistory(int direction);
    void setRunning(bool running);
    void activateRow(const QModelIndex &proxyIndex);
    void chooseExportFile();

    core::analysis::AnalysisCachePtr m_cache;
    std::unique_ptr<core::sql::SliceIds> m_ids;
    BackgroundJob m_job;
    bool m_running = false;
    QStringList m_history; // most recent first
    int m_historyPos = -1;
    QPlainTextEdit *m_editor;
    QComboBox *m_examples;
    QComboBox *m_historyBox;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QPushButton *m_export;
    QLabel *m_status;
    QTableView *m_table;
    QueryResultModel *m_model;
    QSortFilterProxyModel *m_proxy;
};

} // namespace tracedesk::views
