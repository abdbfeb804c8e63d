// TimelineWidget's side of the find bar: the matches are outlined like an op's occurrences
// (TimelineState::highlights), Enter zooms to the current one inside the trace, and the bar
// hands the keyboard back to the canvas.

#include "views/timeline/timelinewidget.h"

#include "views/timeline/searchbar.h"

#include <QLineEdit>

namespace tracedesk::views {

void TimelineWidget::connectSearch()
{
    m_search->setFocusTarget(m_canvas->widget());
    connect(m_search, &SearchBar::currentChanged, this, &TimelineWidget::revealMatch);
    connect(m_search, &SearchBar::finished, this, &TimelineWidget::markSearchResults);
    connect(m_search, &SearchBar::closed, this, [this] {
        // Closing the bar takes its marks away, unless a panel has outlined an op since.
        if (m_searchMarks && m_state->highlights().refs == m_searchMarks)
            m_state->clearHighlights();
        m_searchMarks.reset();
        m_canvas->widget()->setFocus(Qt::OtherFocusReason);
    });
}

void TimelineWidget::markSearchResults()
{
    const bool ours = m_searchMarks && m_state->highlights().refs == m_searchMarks;
    if (m_search->results().empty()) {
        if (ours)
            m_state->clearHighlights();
        m_searchMarks.reset();
        return;
    }
    TimelineState::Highlights marks;
    marks.label = tr("Find “%1”").arg(m_search->field()->text());
    marks.total = m_search->totalMatches();
    marks.refs = std::make_shared<const std::vector<core::SliceRef>>(m_search->results());
    m_searchMarks = marks.refs;
    m_state->setHighlights(std::move(marks));
}

void TimelineWidget::revealMatch(core::SliceRef slice)
{
    if (!m_trace || !m_trace->valid(slice))
        return;
    const core::TimePs start = m_trace->start(slice);
    const TimeRange window =
        searchMatchWindow({start, start + m_trace->duration(slice)}, {m_state->t0(), m_state->t1()},
                          {m_trace->begin, m_trace->end});
    // revealSlice() opens the row and scrolls to it; the window is ours.
    revealSlice(slice);
    m_state->setWindow(window.t0, window.t1);
}

} // namespace tracedesk::views
