// MainWindow's layout: the saved geometry and dock state, the first start's split (the
// analysis docks get about half the height) and the maximised analysis panel.

#include "app/gui/mainwindow.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/windowlayout.h"

#include <QDockWidget>
#include <QLayout>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include <algorithm>

namespace tracedesk::app {

namespace {

const char kGeometryKey[] = "mainWindow/geometry";
const char kStateKey[] = "mainWindow/state";

} // namespace

void MainWindow::saveWindowState()
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    const QByteArray state = settings.value(kStateKey).toByteArray();
    m_firstStart = state.isEmpty() || !restoreState(state);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_firstStart || m_analysis->docks().empty())
        return;
    m_firstStart = false;
    // The docks take their share once the window has its real size.
    layout()->activate();
    resizeDocks({m_analysis->docks().front()}, {int(height() * kFirstAnalysisShare)}, Qt::Vertical);
}

QMenu *MainWindow::createPopupMenu()
{
    QMenu *menu = QMainWindow::createPopupMenu();
    if (menu && m_maximisePanel) {
        menu->addSeparator();
        menu->addAction(m_maximisePanel);
    }
    return menu;
}

void MainWindow::setPanelMaximised(bool maximised)
{
    if (maximised == m_panelMaximised)
        return;
    m_panelMaximised = maximised;
    if (m_maximisePanel && m_maximisePanel->isChecked() != maximised)
        m_maximisePanel->setChecked(maximised);
    if (maximised) {
        m_stateBeforeMaximise = saveState();
        m_hiddenCentral = centralWidget();
        if (m_hiddenCentral)
            m_hiddenCentral->hide();
        m_tracksDock->hide();
        m_detailsDock->hide();
        const auto &docks = m_analysis->docks();
        if (!docks.empty() && std::none_of(docks.begin(), docks.end(),
                                           [](QDockWidget *d) { return d->isVisible(); })) {
            docks.front()->show();
            docks.front()->raise();
        }
        statusBar()->showMessage(
            tr("Panel maximised · %1 restores the timeline")
                .arg(m_maximisePanel->shortcut().toString(QKeySequence::NativeText)));
        return;
    }
    statusBar()->clearMessage();
    if (m_hiddenCentral)
        m_hiddenCentral->show();
    m_hiddenCentral = nullptr;
    // The docks come back where they were, with the sizes they had.
    restoreState(m_stateBeforeMaximise);
    m_stateBeforeMaximise.clear();
}

} // namespace tracedesk::app
