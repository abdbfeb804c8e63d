#pragma once

// FrameworkPages: how an analysis panel shows a PyTorch profiler (Kineto) trace. The panel's own
// content (built for XProf / TensorFlow profiles) and its PyTorch counterpart are the two pages
// of one stack filling the panel; route() picks the page from the trace's framework and hands
// the cache to that page only, so the other page clears and never computes.
//
// NotApplicableView is the PyTorch page of a panel whose analysis has no PyTorch meaning: one
// line saying why, and where to look instead. It shows no chart.
//
// GUI thread only.

#include "core/analysis/analysiscache.h"

#include <QStackedWidget>

#include <functional>

class QLabel;

namespace tracedesk::views {

// True for traces the Kineto reader loaded (RunMetadata::framework == "pytorch").
bool isPyTorchTrace(const core::Trace &trace);
bool isPyTorchTrace(const core::analysis::AnalysisCachePtr &cache);

class FrameworkPages : public QStackedWidget
{
    Q_OBJECT

public:
    using Feed = std::function<void(const core::analysis::AnalysisCachePtr &)>;

    // Puts `classic` and `pytorch` in the stack and the stack alone in `panel` (which must not
    // have a layout yet). `feedPyTorch` gives the PyTorch page its cache (nullptr clears it).
    FrameworkPages(QWidget *panel, QWidget *classic, QWidget *pytorch, Feed feedPyTorch);

    // Shows the page for `cache`'s trace. Returns the cache for the classic page: `cache`
    // itself, or nullptr when the PyTorch page took it.
    core::analysis::AnalysisCachePtr route(core::analysis::AnalysisCachePtr cache);
    bool showsPyTorch() const { return currentWidget() == m_pytorch; }

private:
    QWidget *m_classic;
    QWidget *m_pytorch;
    Feed m_feed;
};

class NotApplicableView : public QWidget
{
    Q_OBJECT

public:
    explicit NotApplicableView(const QString &reason, QWidget *parent = nullptr);

    void setAnalyses(const core::analysis::AnalysisCachePtr &) {}
    QString reasonText() const;

private:
    QLabel *m_reason = nullptr;
};

} // namespace tracedesk::views
