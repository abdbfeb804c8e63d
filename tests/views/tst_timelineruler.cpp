#include "views/timeline/timelineruler.h"

#include <QtTest>

#include <set>

using namespace tracedesk;
using views::computeRuler;

class TstTimelineRuler : public QObject
{
    Q_OBJECT

private slots:
    void niceSteps();
    void exactLabels();
    void offsetWhenLabelsGetLong();
    void distinctAtTwentyZoomLevels();
};

void TstTimelineRuler::niceSteps()
{
    // 4000 ps/px, 90 px apart: at least 360000 ps -> 500 ns.
    const auto r = computeRuler(core::Viewport::withWidth(0, 4'000'000, 1000), 1000, 0);
    QCOMPARE(r.step, core::TimePs(500'000));
    QCOMPARE(r.ticks.size(), size_t(9));   // 0 to 4 us, the right edge included
    QCOMPARE(r.ticks[0].text, QStringLiteral("0"));
    QCOMPARE(r.ticks[1].text, QStringLiteral("0.5 us"));
    QCOMPARE(r.ticks[1].x, 125.0f);
    QVERIFY(r.offset.isEmpty());
}

void TstTimelineRuler::exactLabels()
{
    QCOMPARE(views::fixedTimeText(1'790'000'000'000, 12, 2), QStringLiteral("1.79 s"));
    QCOMPARE(views::fixedTimeText(1'795'000'000'000, 12, 3), QStringLiteral("1.795 s"));
    QCOMPARE(views::fixedTimeText(-20'000, 3, 0), QStringLiteral("-20 ns"));
    QCOMPARE(views::fixedTimeText(5'000'000, 6, 1), QStringLiteral("5.0 us"));
    // Near 1.79 s, 10 ms apart: absolute labels, two decimals, all distinct.
    const core::TimePs origin = 0;
    const auto r = computeRuler(
        core::Viewport::withWidth(1'700'000'000'000, 1'900'000'000'000, 1800), 1800, origin);
    QCOMPARE(r.step, core::TimePs(10'000'000'000));
    QVERIFY(r.offset.isEmpty());
    QCOMPARE(r.ticks[9].text, QStringLiteral("1.79 s"));
    QCOMPARE(r.ticks[10].text, QStringLiteral("1.80 s"));
}

void TstTimelineRuler::offsetWhenLabelsGetLong()
{
    // 2 us of view at 1.79 s: 100 ns ticks would need 7 decimals of a second.
    const core::TimePs t0 = 1'790'000'123'000;
    const auto r = computeRuler(core::Viewport::withWidth(t0, t0 + 2'000'000, 1800), 1800, 0);
    QCOMPARE(r.step, core::TimePs(100'000));   // 2e6 ps * 90 / 1800 = 1e5
    QCOMPARE(r.offset, QStringLiteral("1.79000 s"));   // a multiple of 100 steps (10 us)
    QCOMPARE(r.ticks.front().text, QStringLiteral("+0.2 us"));
    QCOMPARE(r.ticks[1].text, QStringLiteral("+0.3 us"));
    for (const auto &t : r.ticks)
        QVERIFY(t.text.size() <= 9);
}

void TstTimelineRuler::distinctAtTwentyZoomLevels()
{
    // A 10^12 ps trace, zoomed in by 4x twenty times around an odd point.
    const core::TimePs span = 1'000'000'000'000;
    const core::TimePs centre = 737'373'737'373;
    core::TimePs width = span;
    for (int level = 0; level < 20; ++level, width /= 4) {
        const core::TimePs t0 = std::max<core::TimePs>(0, centre - width / 2);
        const auto view = core::Viewport::withWidth(t0, t0 + width, 1730);
        const auto r = computeRuler(view, 1730, 0);
        QVERIFY2(r.ticks.size() >= 2, qPrintable(QString::number(level)));
        // Nice step: 1, 2 or 5 times a power of ten.
        core::TimePs m = r.step;
        while (m % 10 == 0)
            m /= 10;
        QVERIFY2(m == 1 || m == 2 || m == 5, qPrintable(QString::number(r.step)));
        std::set<QString> seen;
        for (const auto &t : r.ticks) {
            QVERIFY2(seen.insert(t.text).second,
                     qPrintable(QStringLiteral("level %1 repeats %2").arg(level).arg(t.text)));
            QVERIFY2(t.text.size() <= 12, qPrintable(t.text));
        }
        // The labels say the ticks' times: offset + relative, or absolute.
        QVERIFY(r.ticks.front().x >= 0 && r.ticks.back().x <= 1730);
        qDebug().noquote() << level << r.step << r.offset << r.ticks.front().text
                           << r.ticks.back().text;
    }
}

QTEST_GUILESS_MAIN(TstTimelineRuler)
#include "tst_timelineruler.moc"
