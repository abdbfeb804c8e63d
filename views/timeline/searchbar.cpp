#include "views/timeline/searchbar.h"

#include "core/query/search.h"
#include "views/common/qtconvert.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

namespace tracedesk::views {

namespace {
constexpr int kDebounceMs = 150;
constexpr size_t kResultCap = 1'000'000;
} // namespace

SearchBar::SearchBar(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("TimelineSearchBar"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(new QLabel(tr("Find:")));
    m_field = new QLineEdit;
    m_field->setObjectName(QStringLiteral("SearchField"));
    m_field->setPlaceholderText(tr("Slice name (Enter: next, Shift+Enter: previous, Esc: close)"));
    m_field->setClearButtonEnabled(true);
    m_field->installEventFilter(this);
    layout->addWidget(m_field, 1);
    m_count = new QLabel;
    m_count->setObjectName(QStringLiteral("SearchCount"));
    m_count->setMinimumWidth(160);
    layout->addWidget(m_count);
    auto *prev = new QToolButton;
    prev->setText(QStringLiteral("▲"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    connect(prev, &QToolButton::clicked, this, &SearchBar::previous);
    layout->addWidget(prev);
    auto *nextButton = new QToolButton;
    nextButton->setText(QStringLiteral("▼"));
    nextButton->setToolTip(tr("Next match (Enter)"));
    connect(nextButton, &QToolButton::clicked, this, &SearchBar::next);
    layout->addWidget(nextButton);
    auto *close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close (Esc)"));
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        returnFocus();
        emit closed();
    });
    layout->addWidget(close);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &SearchBar::searchNow);
    connect(m_field, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
}

SearchBar::~SearchBar() = default;

void SearchBar::setTrace(core::TracePtr trace)
{
    m_job.stop();
    m_trace = std::move(trace);
    m_results.clear();
    m_total = 0;
    m_current = -1;
    m_searching = false;
    m_searchedQuery.clear();
    updateCount();
}

void SearchBar::setFocusTarget(QWidget *target)
{
    if (m_focusTarget)
        m_focusTarget->removeEventFilter(this);
    m_focusTarget = target;
    if (m_focusTarget)
        m_focusTarget->installEventFilter(this);
}

void SearchBar::returnFocus()
{
    if (m_focusTarget)
        m_focusTarget->setFocus(Qt::OtherFocusReason);
}

void SearchBar::activate()
{
    show();
    m_field->setFocus(Qt::ShortcutFocusReason);
    m_field->selectAll();
}

void SearchBar::searchNow()
{
    m_debounce->stop();
    const QString query = m_field->text();
    if (!m_trace || query == m_searchedQuery)
        return;
    m_searchedQuery = query;
    m_results.clear();
    m_total = 0;
    m_current = -1;
    if (query.isEmpty()) {
        m_job.stop();
        m_searching = false;
        updateCount();
        emit finished();
        return;
    }
    m_searching = true;
    updateCount();
    core::TracePtr trace = m_trace;
    m_job.run<Outcome>(
        this,
        [trace, query](core::CancelToken cancel) {
            core::SearchOptions options;
            options.cap = kResultCap;
            options.cancel = cancel;
            Outcome out;
            out.query = query;
            auto result = core::searchSlices(*trace, query.toStdString(), options);
            if (result) {
                out.ok = true;
                out.refs = std::move(result.value().refs);
                out.total = result.value().total;
            } else {
                out.error = QString::fromStdString(result.error().message);
            }
            return out;
        },
        [this](Outcome outcome) { deliver(std::move(outcome)); });
}

void SearchBar::deliver(Outcome outcome)
{
    m_searching = false;
    if (outcome.query != m_searchedQuery)
        return;
    m_results = std::move(outcome.refs);
    m_total = outcome.total;
    m_current = -1;
    updateCount();
    if (!outcome.ok)
        m_count->setText(outcome.error);
    emit finished();
    if (m_stepAfterSearch != 0) {
        const int delta = m_stepAfterSearch;
        m_stepAfterSearch = 0;
        step(delta);
    }
}

void SearchBar::next()
{
    step(1);
}

void SearchBar::previous()
{
    step(-1);
}

void SearchBar::step(int delta)
{
    if (m_field->text() != m_searchedQuery || m_searching) {
        m_stepAfterSearch = delta;
        searchNow();
        return;
    }
    if (m_results.empty())
        return;
    const int n = int(m_results.size());
    m_current = m_current < 0 ? (delta > 0 ? 0 : n - 1) : (m_current + delta + n) % n;
    updateCount();
    emit currentChanged(m_results[size_t(m_current)]);
}

QString SearchBar::countText() const
{
    return m_count->text();
}

void SearchBar::updateCount()
{
    if (m_searching) {
        m_count->setText(tr("searching…"));
    } else if (m_searchedQuery.isEmpty()) {
        m_count->clear();
    } else if (m_total == 0) {
        m_count->setText(tr("no matches"));
    } else {
        QString text = m_current >= 0 ? tr("%1 of %2").arg(views::countText(quint64(m_current) + 1),
                                                           views::countText(m_total))
                                      : tr("%1 matches").arg(views::countText(m_total));
        if (m_total > m_results.size())
            text += tr(" (first %1 listed)").arg(views::countText(m_results.size()));
        m_count->setText(text);
    }
}

bool SearchBar::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::KeyPress || (watched != m_field && watched != m_focusTarget))
        return QWidget::eventFilter(watched, event);
    auto *key = static_cast<QKeyEvent *>(event);
    const bool enter = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter;
    if (watched == m_focusTarget) {
        // The timeline keeps stepping through the matches of an open bar.
        if (!enter || !isVisible() || m_searchedQuery.isEmpty())
            return false;
        step(key->modifiers() & Qt::ShiftModifier ? -1 : 1);
        return true;
    }
    if (enter) {
        step(key->modifiers() & Qt::ShiftModifier ? -1 : 1);
        returnFocus();
        return true;
    }
    if (key->key() == Qt::Key_Escape) {
        hide();
        returnFocus();
        emit closed();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

TimeRange searchMatchWindow(TimeRange match, TimeRange view, TimeRange bounds)
{
    const core::TimePs duration = std::max<core::TimePs>(match.duration(), 0);
    const core::TimePs target = std::max(duration * 3, kMinMatchSpan);
    core::TimePs span = view.duration();
    // Keep the zoom while the match fits in 90 % of it and is not a speck in a far wider view.
    if (span < duration + duration / 9 || span < kMinMatchSpan || span > target * 3)
        span = target;
    if (!bounds.valid() || span >= bounds.duration())
        return bounds.valid() ? bounds : TimeRange{match.t0, match.t0 + span};
    const core::TimePs mid = match.t0 + duration / 2;
    const core::TimePs t0 = std::clamp(mid - span / 2, bounds.t0, bounds.t1 - span);
    return {t0, t0 + span};
}

} // namespace tracedesk::views
