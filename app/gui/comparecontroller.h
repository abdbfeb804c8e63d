#pragma once

// CompareController: the main window's comparison mode. It loads the second profile (B) with a
// LoadController of its own, so A and B load independently and in parallel, each with progress
// and Cancel; once both are there it shows the CompareWorkspace in the window's central stack.
// Closing side B returns to A alone; closing side A shows B alone. A failed or cancelled load of
// B leaves whatever the window showed untouched.

#include "core/model/trace.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QDockWidget;
class QProgressDialog;
class QStackedWidget;

namespace tracedesk::views {
class CompareWorkspace;
}

namespace tracedesk::app {

class LoadController;
class MainWindow;

class CompareController : public QObject
{
    Q_OBJECT

public:
    CompareController(MainWindow *window, QStackedWidget *central);
    ~CompareController() override;

    // Loads `path` as B and compares it with the trace the window shows (or will show, when A
    // is still loading).
    void compareWith(const QString &path);
    bool isComparing() const;
    bool isLoading() const;
    views::CompareWorkspace *workspace() const { return m_workspace; }
    LoadController *loads() const { return m_loads; }
    QString lastError() const { return m_lastError; }

    // Called by the window whenever it shows a new trace as A.
    void onTraceShown();

signals:
    void comparisonShown();
    void failed(const QString &message);

private:
    void onLoaded(core::TracePtr trace, const QString &displayName);
    void onFailed(const QString &message);
    void showIfReady();
    void closeSide(int side);
    void closeProgress();
    void hideAnalysisDocks();
    void restoreAnalysisDocks();

    MainWindow *m_window;
    QStackedWidget *m_central;
    LoadController *m_loads;
    views::CompareWorkspace *m_workspace;
    QPointer<QProgressDialog> m_progress;
    core::TracePtr m_b;
    QString m_nameB;
    QString m_lastError;
    bool m_wanted = false;
    QList<QPointer<QDockWidget>> m_hiddenDocks; // panels hidden while comparing
};

} // namespace tracedesk::app
