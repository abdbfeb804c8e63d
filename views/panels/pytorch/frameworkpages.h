#pragma once

// FrameworkPages: how an analysis panel shows a PyTorch profiler (Kineto) trace. The panel's own
// content (built for XProf / TensorFlow profiles) and its PyTorch counterpart are the two pages
// of one stack filling the panel; route() picks the page from the trace's framework and hands
// the cache to that page only, so the other page clears and never computes.
//
// A merged run of several ranks: the PyTorch views describe one rank at a time, so the PyTorch
// page gets a rank chooser ("rank 3 of 8") above it, shown only for such a run. Picking a rank
// hands the page that rank's analyses (core/analysis/pytorch/rankanalyses.h), which it computes
// on its worker as for any trace. The pick is a PyTorchRankChoice, the page's own or one shared
// by all panels (setRankChoice). A NotApplicableView page gets no chooser.
//
// NotApplicableView is the PyTorch page of a panel whose analysis has no PyTorch meaning: one
// line saying why, and where to look instead. It shows no chart.
//
// GUI thread only.

#include "core/analysis/analysiscache.h"

#include <QStackedWidget>

#include <functional>

class QComboBox;
class QLabel;

namespace tracedesk::views {

class PyTorchRankChoice;

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
    // Which traces the framework page shows (default: PyTorch traces). The kernel view also
    // reads any trace whose reader mapped GPU activities (Nsight Systems exports).
    void setPageFor(std::function<bool(const core::Trace &)> takes) { m_takes = std::move(takes); }
    bool showsPyTorch() const { return currentWidget() == m_pytorchPage; }
    // Why the panel has nothing for a PyTorch trace (its NotApplicableView's line), else empty.
    QString pytorchReason() const;

    // Follows `choice` (kept by the caller, outliving this) instead of the page's own.
    void setRankChoice(PyTorchRankChoice *choice);
    PyTorchRankChoice *rankChoice() const { return m_choice; }
    // The rank chooser, nullptr for a NotApplicableView page. Visible only for a merged run.
    QComboBox *rankChooser() const { return m_chooser; }

private:
    void showRanks();
    void onChosen(const core::analysis::AnalysisCache *cache, uint32_t section);

    QWidget *m_classic;
    QWidget *m_pytorch;
    QWidget *m_pytorchPage; // m_pytorch, or the box holding the rank bar above it
    Feed m_feed;
    std::function<bool(const core::Trace &)> m_takes;
    core::analysis::AnalysisCachePtr m_cache; // the PyTorch page's trace, nullptr otherwise
    PyTorchRankChoice *m_choice = nullptr;
    QWidget *m_rankBar = nullptr;
    QComboBox *m_chooser = nullptr;
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
