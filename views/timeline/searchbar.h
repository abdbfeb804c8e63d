#pragma once

// SearchBar: the timeline's find bar. Typing searches slice names over the whole trace on a
// worker (core/query/search.h), shows how many matched, and Enter / Shift+Enter step through
// the matches in time order, each announced through currentChanged() so the timeline can
// zoom to and select it. Enter and Esc hand the keyboard back to the focus target (the
// timeline's canvas), so its keys work at once; while the bar is open, Enter / Shift+Enter on
// the target keep stepping. Esc closes the bar.

#include "core/model/trace.h"
#include "views/timeline/backgroundjob.h"
#include "views/timeline/timelinestate.h"

#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QTimer;

namespace tracedesk::views {

class SearchBar : public QWidget
{
    Q_OBJECT

public:
    explicit SearchBar(QWidget *parent = nullptr);
    ~SearchBar() override;

    void setTrace(core::TracePtr trace);
    // Where the keyboard goes after Enter or Esc in the field; its Enter / Shift+Enter step
    // through the matches while the bar is shown.
    void setFocusTarget(QWidget *target);
    // Shows the bar and focuses the query field.
    void activate();

    QLineEdit *field() const { return m_field; }
    QString countText() const;
    const std::vector<core::SliceRef> &results() const { return m_results; }
    uint64_t totalMatches() const { return m_total; }
    int currentIndex() const { return m_current; }
    bool searching() const { return m_searching; }

    // Runs the search for the field's text now (normally debounced while typing).
    void searchNow();
    void next();
    void previous();

signals:
    void currentChanged(tracedesk::core::SliceRef slice);
    void finished();
    void closed();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Outcome
    {
        QString query;
        std::vector<core::SliceRef> refs;
        uint64_t total = 0;
        bool ok = false;
        QString error;
    };
    void deliver(Outcome outcome);
    void returnFocus();
    void step(int delta);
    void updateCount();

    core::TracePtr m_trace;
    QWidget *m_focusTarget = nullptr;
    QLineEdit *m_field = nullptr;
    QLabel *m_count = nullptr;
    QTimer *m_debounce = nullptr;
    QString m_searchedQuery;
    std::vector<core::SliceRef> m_results;
    uint64_t m_total = 0;
    int m_current = -1;
    bool m_searching = false;
    int m_stepAfterSearch = 0;   // a step asked for while the search ran
    BackgroundJob m_job;
};

// The window that shows a search match: about three times its duration (at least
// kMinMatchSpan) centred on it, or the current span when the match already reads well in it
// (fits, and is not lost in a much wider view); always inside `bounds` (the trace).
inline constexpr core::TimePs kMinMatchSpan = 1'000'000;   // 1 us
TimeRange searchMatchWindow(TimeRange match, TimeRange view, TimeRange bounds);

} // namespace tracedesk::views
